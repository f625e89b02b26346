import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitFailure, startFailure, startProgram, type ProgramIdentity } from '../program/local-program.js';
import { WavStreamReader } from '../program/wav-stream.js';
import { ProviderError } from '../provider-error.js';
import type { TtsChunk, TtsProvider, TtsRequest } from '../tts.js';

export interface FliteTtsOptions {
  /** The flite program, a name on PATH or a path (`PARLEY_FLITE_BIN`). */
  bin: string;
  /** Where each request's private working folder is made (holds flite's WAV while it is written). */
  tmpDir: string;
  /** WAV bytes per chunk yielded: 32 KiB is about 1 s at 16 kHz. */
  chunkBytes: number;
  /** Most stderr kept for an error message, in bytes. */
  maxStderrBytes: number;
}

export const defaultFliteTtsOptions: FliteTtsOptions = {
  bin: 'flite',
  tmpDir: tmpdir(),
  chunkBytes: 32 * 1024,
  maxStderrBytes: 4096,
};

/**
 * flite's built-in voices that Parley offers, with each voice's own `duration_stretch` (the diphone
 * voices kal and kal16 set 1.1), so that speed 1 sounds as flite's default does. kal speaks at
 * 8 kHz, the others at 16 kHz; the WAV header says which. `awb_time` (a talking clock) is left out.
 */
export const fliteVoices: Readonly<Record<string, number>> = { slt: 1, rms: 1, awb: 1, kal16: 1.1, kal: 1.1 };

/**
 * Text to speech with Debian's `flite` (CMU Flite 2.2). One process per request. The text goes in
 * on stdin: never argv, so it can never be read as an option (flite's `-t TEXT` would also be safe,
 * but argv shows in `ps` and has a size limit). flite cannot write its WAV to a pipe: reading text
 * from a stream it appends one utterance (sentence) at a time and rewrites the WAV header after
 * each, which needs a seekable file, and `-o /dev/stdout` cannot even be opened on Node's child
 * stdio (a socket). So it writes into a private temporary folder, and the WAV is streamed back as
 * PCM16 chunks at the voice's rate once flite exits: the pipeline asks for one sentence at a time,
 * which flite synthesizes in one piece anyway (slt: about 0.1 s for 3 s of speech).
 * Aborting kills the process and ends the iteration quietly.
 */
export class FliteTts implements TtsProvider {
  readonly label = 'flite';
  private readonly options: FliteTtsOptions;

  constructor(options: Partial<FliteTtsOptions> = {}) {
    this.options = { ...defaultFliteTtsOptions, ...options };
  }

  async *synthesize(request: TtsRequest): AsyncIterable<TtsChunk> {
    const { signal } = request;
    if (signal?.aborted || request.text.trim() === '') return;
    const { bin, tmpDir } = this.options;
    const stretch = durationStretch(request); // an unknown voice fails before any folder or process
    const dir = await mkdtemp(join(tmpDir, 'parley-flite-')).catch((err: unknown) => {
      throw new ProviderError('flite', `could not make a working folder in ${tmpDir}: ${errorMessage(err)}`, {
        cause: err,
      });
    });
    try {
      const wavPath = join(dir, 'speech.wav');
      const args = ['-voice', request.voice, '--setf', `duration_stretch=${stretch}`, '-o', wavPath];
      const id = this.identity();
      const program = startProgram(bin, args, request.text, {
        stdout: 'ignore',
        maxStderrBytes: this.options.maxStderrBytes,
        signal,
      });
      const exit = await program.exit;
      const stderr = program.stderr();
      if (signal?.aborted) return;
      if (exit.error !== undefined) throw startFailure(id, exit.error);
      if (exit.code !== 0) throw exitFailure(id, exit, stderr);
      yield* this.read(wavPath, stderr, signal);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The finished WAV as PCM16 chunks. flite reports failures to write it on stderr, yet exits 0. */
  private async *read(wavPath: string, stderr: string, signal: AbortSignal | undefined): AsyncIterable<TtsChunk> {
    const { bin, chunkBytes } = this.options;
    const reader = new WavStreamReader();
    try {
      for await (const bytes of createReadStream(wavPath, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
        if (signal?.aborted) return;
        const samples = reader.push(bytes);
        if (samples.length > 0) yield { samples, sampleRate: reader.sampleRate! };
      }
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'wrote no WAV file' : errorMessage(err);
      throw new ProviderError('flite', `flite (${bin}) ${why}${stderr === '' ? '' : `: ${stderr}`}`, { cause: err });
    }
    if (reader.sampleRate === undefined)
      throw new ProviderError('flite', `flite (${bin}) wrote no WAV header${stderr === '' ? '' : `: ${stderr}`}`);
  }

  private identity(): ProgramIdentity {
    return {
      provider: 'flite',
      program: 'flite',
      bin: this.options.bin,
      install: 'install the Debian package flite, or set PARLEY_FLITE_BIN',
    };
  }
}

/**
 * flite's `duration_stretch` for a request: the voice's own over `speed`. An unknown voice is
 * refused: flite would quietly speak with kal instead (or load a voice file, for a path).
 */
export function durationStretch(request: Pick<TtsRequest, 'voice' | 'speed'>): number {
  const stretch = Object.hasOwn(fliteVoices, request.voice) ? fliteVoices[request.voice] : undefined;
  if (stretch === undefined) {
    const known = Object.keys(fliteVoices).join(', ');
    throw new ProviderError('flite', `unknown voice "${request.voice}": flite speaks ${known}`);
  }
  const speed = Number.isFinite(request.speed) && request.speed > 0 ? request.speed : 1;
  return Number((stretch / speed).toFixed(4));
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
