import { execFile } from 'node:child_process';
import { describeError, roundMs } from '../status/describe-error.js';
import { SettledCache } from '../status/settled-cache.js';

export interface ProgramProbe {
  ok: boolean;
  /** Why the program did not run; null when it did. */
  problem: string | null;
  voices: string[];
}

export interface ProgramCheck {
  status: 'ok' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

function run(bin: string, args: string[], timeoutMs: number): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile(bin, args, { encoding: 'buffer', timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout) => {
      if (err !== null) {
        if (err.killed) reject(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: 'TimeoutError' }));
        else reject(err);
      } else resolvePromise(stdout);
    });
  });
}

/** Voice names from `espeak-ng --voices`: the Language column plus the aliases in "Other Languages". */
function parseEspeakVoices(output: string): string[] {
  const voices = new Set<string>();
  for (const line of output.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 5 || columns[1] === undefined) continue;
    voices.add(columns[1]);
    for (const match of line.matchAll(/\(([^\s()]+) \d+\)/g)) if (match[1] !== undefined) voices.add(match[1]);
  }
  return [...voices].sort();
}

/** Whether the espeak-ng program runs here and which voices it has; a synthesis check for health. */
export class EspeakProbe {
  private readonly cache: SettledCache<ProgramProbe>;

  constructor(
    private readonly bin: string,
    private readonly timeoutMs: number,
    cacheMs: number,
  ) {
    this.cache = new SettledCache(cacheMs);
  }

  /** `espeak-ng --version`, then its installed voices; cached for `cacheMs`. */
  probe(): Promise<ProgramProbe> {
    return this.cache.get(() => this.runProbe());
  }

  /** Synthesizes one word to stdout with `voice` and checks a WAV came back. */
  async synthesize(voice: string | undefined): Promise<ProgramCheck> {
    const start = performance.now();
    try {
      const wav = await run(
        this.bin,
        ['--stdout', ...(voice === undefined ? [] : ['-v', voice]), 'ok'],
        this.timeoutMs,
      );
      const latency = roundMs(performance.now() - start);
      if (wav.length > 44 && wav.subarray(0, 4).toString('latin1') === 'RIFF')
        return { status: 'ok', latency_ms: latency, detail: null };
      return { status: 'error', latency_ms: latency, detail: `synthesis produced no audio (${wav.length} bytes)` };
    } catch (err) {
      return { status: 'error', latency_ms: null, detail: `synthesis failed: ${describeError(err)}` };
    }
  }

  private async runProbe(): Promise<ProgramProbe> {
    try {
      await run(this.bin, ['--version'], this.timeoutMs);
    } catch (err) {
      return { ok: false, problem: `PARLEY_ESPEAK_BIN (${this.bin}) did not run: ${describeError(err)}`, voices: [] };
    }
    const voices = await run(this.bin, ['--voices'], this.timeoutMs).then(
      (out) => parseEspeakVoices(out.toString('utf8')),
      () => [], // the program runs; without a voice list the catalog's voices stand
    );
    return { ok: true, problem: null, voices };
  }
}
