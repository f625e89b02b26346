import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ProviderError } from '../provider-error.js';

/** How a local program ended: its code or signal, or the error that kept it from starting. */
export interface ProgramExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error: Error | undefined;
}

/** What names a program in errors: the provider, the program's name, the binary and how to install it. */
export interface ProgramIdentity {
  provider: string;
  program: string;
  bin: string;
  /** The fix when it is missing, e.g. "install the Debian package flite, or set PARLEY_FLITE_BIN". */
  install: string;
}

/** A started program: its stdout (when piped), how it ended, and its stderr so far (capped). */
export interface RunningProgram {
  child: ChildProcess;
  stdout: Readable | null;
  exit: Promise<ProgramExit>;
  stderr(): string;
  /** Kills it (SIGKILL) unless it has ended. */
  kill(): void;
}

/**
 * Starts `bin` with `args` and writes `text` to its stdin, never argv (so text can never be read as
 * an option); stderr is kept up to `maxStderrBytes` for error messages; `signal` kills it.
 * The TTS programs (espeak-ng, flite) run through this.
 */
export function startProgram(
  bin: string,
  args: string[],
  text: string,
  options: { stdout: 'pipe' | 'ignore'; maxStderrBytes: number; signal?: AbortSignal | undefined },
): RunningProgram {
  const child = spawn(bin, args, { stdio: ['pipe', options.stdout, 'pipe'] });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const exit = new Promise<ProgramExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('close', (code, sig) => resolve({ code, signal: sig, error: undefined }));
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    if (stderr.length < options.maxStderrBytes) stderr += chunk.slice(0, options.maxStderrBytes - stderr.length);
  });
  child.stdin!.on('error', () => {}); // EPIPE when the process dies early: its exit reports why
  child.stdin!.end(text, 'utf8');
  options.signal?.addEventListener('abort', kill, { once: true });
  void exit.then(() => options.signal?.removeEventListener('abort', kill));
  return { child, stdout: child.stdout, exit, stderr: () => stderr.trim(), kill };
}

/** A program that did not start: missing, not executable, or another spawn error. */
export function startFailure(id: ProgramIdentity, err: Error): ProviderError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new ProviderError(
      id.provider,
      `${id.program} not found: ${id.bin} is not installed or not on PATH (${id.install})`,
    );
  if (code === 'EACCES')
    return new ProviderError(id.provider, `${id.program} (${id.bin}) is not executable (permission denied)`);
  return new ProviderError(id.provider, `${id.program} (${id.bin}) did not start: ${err.message}`);
}

/** A program that ran and failed: killed, or a non-zero exit; stderr appended when it said anything. */
export function exitFailure(id: ProgramIdentity, exit: ProgramExit, stderr: string): ProviderError {
  const why = exit.code === null ? `was killed by ${exit.signal ?? 'a signal'}` : `exited with code ${exit.code}`;
  return new ProviderError(id.provider, `${id.program} (${id.bin}) ${why}${stderr === '' ? '' : `: ${stderr}`}`);
}
