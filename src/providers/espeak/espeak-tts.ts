import { exitFailure, startFailure, startProgram, type ProgramIdentity } from '../program/local-program.js';
import { WavStreamReader } from '../program/wav-stream.js';
import { ProviderError } from '../provider-error.js';
import type { TtsChunk, TtsProvider, TtsRequest } from '../tts.js';

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
    const id = this.identity();
    const program = startProgram(id.bin, this.args(request), request.text, {
      stdout: 'pipe',
      maxStderrBytes: this.options.maxStderrBytes,
      signal,
    });
    const reader = new WavStreamReader();
    let streamError: unknown;
    try {
      try {
        for await (const bytes of program.stdout as AsyncIterable<Buffer>) {
          if (signal?.aborted) return;
          const samples = reader.push(bytes);
          if (samples.length > 0) yield { samples, sampleRate: reader.sampleRate! };
        }
      } catch (err) {
        streamError = err; // unreadable output, or a failed spawn (its exit says more)
        program.kill();
      }
      const exit = await program.exit;
      if (signal?.aborted) return;
      if (exit.error !== undefined) throw startFailure(id, exit.error);
      if (streamError !== undefined) {
        const why = streamError instanceof Error ? streamError.message : String(streamError);
        throw new ProviderError('espeak', `espeak-ng (${id.bin}) output could not be read: ${why}`, {
          cause: streamError,
        });
      }
      if (exit.code !== 0) throw exitFailure(id, exit, program.stderr());
      if (reader.sampleRate === undefined)
        throw new ProviderError('espeak', `espeak-ng (${id.bin}) wrote no WAV header to stdout`);
    } finally {
      program.kill();
    }
  }

  private identity(): ProgramIdentity {
    return { provider: 'espeak', program: 'espeak-ng', bin: this.options.bin, install: 'set PARLEY_ESPEAK_BIN' };
  }
}
