/**
 * Domain errors. The HTTP error handler maps them onto DESIGN.md's shape:
 * `{"error":{"code","message","request_id","details"}}`. Anything that is not an AppError is a 500
 * whose message never reaches the client.
 */

export interface FieldProblem {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class ValidationError extends AppError {
  constructor(problems: FieldProblem[], message = 'request validation failed') {
    super(400, 'validation_error', message, problems);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id?: string) {
    super(404, 'not_found', id === undefined ? `${what} not found` : `${what} ${id} not found`);
  }
}

/**
 * `.catch(nullIfNotFound)`: a record that is not there reads as null; any other failure (Redis
 * unreachable) still rejects, so an outage is never taken for "not found".
 */
export function nullIfNotFound(err: unknown): null {
  if (err instanceof NotFoundError) return null;
  throw err;
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid credentials') {
    super(401, 'unauthorized', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: unknown) {
    super(409, 'conflict', message, details);
  }
}
