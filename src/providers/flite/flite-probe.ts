import { execFile } from 'node:child_process';
import type { ProgramCheck, ProgramProbe } from '../espeak/espeak-probe.js';
import { describeError, roundMs } from '../status/describe-error.js';
import { SettledCache } from '../status/settled-cache.js';
import { FliteTts, fliteVoices } from './flite-tts.js';

const fix = 'install the Debian package flite, or set PARLEY_FLITE_BIN';

/** The voices `flite -lv` lists ("Voices available: kal awb_time kal16 awb rms slt"). */
function listVoices(bin: string, timeoutMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-lv'], { timeout: timeoutMs, maxBuffer: 64 * 1024 }, (err, stdout) => {
      const [, names = ''] = stdout.split(':');
      if (err === null) resolve(names.trim().split(/\s+/));
      else if (err.killed)
        reject(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: 'TimeoutError' }));
      else reject(err);
    });
  });
}

/**
 * Whether the flite program runs here and which of Parley's flite voices it has (`flite -lv`;
 * `flite --version` exits 1 even when flite works); a synthesis check, through the provider
 * itself, for health.
 */
export class FliteProbe {
  private readonly cache: SettledCache<ProgramProbe>;
  private readonly tts: FliteTts;

  constructor(
    private readonly bin: string,
    private readonly timeoutMs: number,
    cacheMs: number,
  ) {
    this.cache = new SettledCache(cacheMs);
    this.tts = new FliteTts({ bin });
  }

  /** `flite -lv`, cached for `cacheMs`: the program runs, and the voices Parley offers that it has. */
  probe(): Promise<ProgramProbe> {
    return this.cache.get(async () => {
      try {
        const listed = await listVoices(this.bin, this.timeoutMs);
        const voices = Object.keys(fliteVoices).filter((v) => listed.includes(v));
        if (voices.length > 0) return { ok: true, problem: null, voices };
        return {
          ok: false,
          problem: `PARLEY_FLITE_BIN (${this.bin}) has none of the voices ${Object.keys(fliteVoices).join(', ')}`,
          voices,
        };
      } catch (err) {
        return {
          ok: false,
          problem: `PARLEY_FLITE_BIN (${this.bin}) did not run: ${describeError(err)}; ${fix}`,
          voices: [],
        };
      }
    });
  }

  /** Synthesizes one word with `voice` and checks audio came back. */
  async synthesize(voice: string | undefined): Promise<ProgramCheck> {
    const start = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    const request = { text: 'ok', model: 'flite', voice: voice ?? 'slt', speed: 1, signal };
    try {
      let samples = 0;
      for await (const chunk of this.tts.synthesize(request)) samples += chunk.samples.length;
      const latency = roundMs(performance.now() - start);
      if (signal.aborted)
        return { status: 'error', latency_ms: null, detail: `synthesis timed out after ${this.timeoutMs} ms` };
      if (samples > 0) return { status: 'ok', latency_ms: latency, detail: null };
      return { status: 'error', latency_ms: latency, detail: 'synthesis produced no audio' };
    } catch (err) {
      return { status: 'error', latency_ms: null, detail: `synthesis failed: ${describeError(err)}` };
    }
  }
}
