/**
 * A problem the operator must fix before Parley can start (missing binary, missing secret, data
 * folder in use). main.ts prints its message to stderr, without a stack, and exits 1.
 */
export class BootError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootError';
  }
}
