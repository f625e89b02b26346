import { spawn } from 'node:child_process';
import { ProviderError } from '../provider-error.js';
import type { TtsChunk, TtsProvider, TtsRequest } from '../tts.js';
import { WavStreamReader } from './wav-stream.js';

export interface EspeakTtsOptions {
  /** The espeak-ng program, a name on PATH or a path (`PARLEY_ESPEAK_BIN`). */
  bin: string;
  /** Words per minute at speed 1; `speed` scales it (`-s`). */
  wordsPerMinute: number;
  /** Most stderr kept for an error message, in bytes. */
  maxStderrBytes: number;
}

export const defaultEspeakTtsOptions: EspeakTtsOptions = {
  bin: 'espeak-ng',
  wordsPerMinute: 175,
  maxStderrBytes: 4096,
};

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error: Error | undefined;
}

/**
 * Text to speech with the local `espeak-ng` program: the zero-download default. One process per
 * request; the text goes in on stdin (never argv, so text can never be read as an option) and the
 * WAV it writes to stdout is streamed back as PCM16 chunks (22050 Hz) while it is produced.
 * Aborting kills the process and ends the iteration quietly.
 */
export class EspeakTts implements TtsProvider {
  readonly label = 'espeak';
  private readonly options: EspeakTtsOptions;

  constructor(options: Partial<EspeakTtsOptions> = {}) {
    this.options = { ...defaultEspeakTtsOptions, ...options };
  }

  /** The argv for one request: options only, the text goes to stdin. */
  args(request: Pick<TtsRequest, 'voice' | 'speed'>): string[] {
    const wpm = Math.max(1, Math.round(this.options.wordsPerMinute * request.speed));
    return ['--stdout', '--stdin', '-v', request.voice, '-s', String(wpm)];
  }

  async *synthesize(request: TtsRequest): AsyncIterable<TtsChunk> {
    const { signal } = request;
    if (signal?.aborted || request.text.trim() === '') return;
    const { bin, maxStderrBytes } = this.options;
    const child = spawn(bin, this.args(request), { stdio: ['pipe', 'pipe', 'pipe'] });
    const exit = new Promise<Exit>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('close', (code, sig) => resolve({ code, signal: sig, error: undefined }));
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      if (stderr.length < maxStderrBytes) stderr += text.slice(0, maxStderrBytes - stderr.length);
    });
    child.stdin.on('error', () => {}); // EPIPE when the process dies early: its exit reports why
    child.stdin.end(request.text, 'utf8');
    const kill = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', kill, { once: true });
    const reader = new WavStreamReader();
    let streamError: unknown;
    try {
      try {
        for await (const bytes of child.stdout as AsyncIterable<Buffer>) {
          if (signal?.aborted) return;
          const samples = reader.push(bytes);
          if (samples.length > 0) yield { samples, sampleRate: reader.sampleRate! };
        }
      } catch (err) {
        streamError = err; // unreadable output, or a failed spawn (its exit says more)
        kill();
      }
      const result = await exit;
      if (signal?.aborted) return;
      if (result.error !== undefined) throw this.spawnFailure(result.error);
      if (streamError !== undefined) {
        const why = streamError instanceof Error ? streamError.message : String(streamError);
        throw new ProviderError('espeak', `espeak-ng (${bin}) output could not be read: ${why}`, {
          cause: streamError,
        });
      }
      if (result.code !== 0) {
        const why =
          result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.code}`;
        const detail = stderr.trim();
        throw new ProviderError('espeak', `espeak-ng (${bin}) ${why}${detail === '' ? '' : `: ${detail}`}`);
      }
      if (reader.sampleRate === undefined)
        throw new ProviderError('espeak', `espeak-ng (${bin}) wrote no WAV header to stdout`);
    } finally {
      signal?.removeEventListener('abort', kill);
      if (child.exitCode === null && child.signalCode === null) kill();
    }
  }

  private spawnFailure(err: Error): ProviderError {
    const code = (err as NodeJS.ErrnoException).code;
    const { bin } = this.options;
    if (code === 'ENOENT')
      return new ProviderError(
        'espeak',
        `espeak-ng not found: ${bin} is not installed or not on PATH (set PARLEY_ESPEAK_BIN)`,
      );
    if (code === 'EACCES')
      return new ProviderError('espeak', `espeak-ng (${bin}) is not executable (permission denied)`);
    return new ProviderError('espeak', `espeak-ng (${bin}) did not start: ${err.message}`);
  }
}
