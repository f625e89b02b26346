import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { providerAvailabilitySchema } from '../records/preset.js';
import { providers as catalog, type Capability, type ProviderInfo } from './catalog.js';

/**
 * What this deployment can run: the catalog of every provider Parley implements, each marked
 * configured or not (`availability`, for presets/available), and live probes of them (`check`, for
 * /health/providers). Probes never load models or send audio anywhere; they are cached so the
 * public health endpoint cannot be used to hammer upstreams.
 */

export type ProviderAvailability = z.infer<typeof providerAvailabilitySchema>;

export interface ProviderCheck {
  capability: Capability;
  provider: string;
  status: 'ok' | 'not_configured' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

export interface ProviderRegistryOptions {
  /**
   * Catalog model id → folder under `modelsDir`, for folders not named after the model id
   * (test fixtures, renamed downloads). Ids not listed map to `<modelsDir>/<model id>`.
   */
  modelAliases?: Readonly<Record<string, string>>;
  /** How long `check()` results are reused after they complete. */
  checkCacheMs?: number;
  /** Time limit of each probe (HTTP request to the remote API, espeak-ng run). */
  probeTimeoutMs?: number;
  /** How long the result of `espeak-ng --version` / `--voices` is reused. */
  programCacheMs?: number;
}

export const defaultProviderRegistryOptions = {
  checkCacheMs: 5_000,
  probeTimeoutMs: 3_000,
  programCacheMs: 60_000,
} as const;

const defaultOpenAiBaseUrl = 'https://api.openai.com/v1';

interface ProgramProbe {
  ok: boolean;
  /** Why the program did not run; null when it did. */
  problem: string | null;
  voices: string[];
}

interface ModelState {
  id: string;
  installed: boolean;
}

interface Cached<T> {
  value: Promise<T>;
  /** When the value settled (ms since epoch); undefined while in flight. */
  settledAt: number | undefined;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
    if (err.name === 'TimeoutError') return 'timed out';
    if (code === 'ENOENT') return 'program not found';
    if (code === 'EACCES') return 'permission denied';
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND') return 'host not found';
    if (typeof code === 'string') return code;
    return err.message.split('\n')[0] ?? err.name;
  }
  return String(err);
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
export function parseEspeakVoices(output: string): string[] {
  const voices = new Set<string>();
  for (const line of output.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length < 5 || columns[1] === undefined) continue;
    voices.add(columns[1]);
    for (const match of line.matchAll(/\(([^\s()]+) \d+\)/g)) if (match[1] !== undefined) voices.add(match[1]);
  }
  return [...voices].sort();
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export class ProviderRegistry {
  private readonly options: Required<ProviderRegistryOptions>;
  private program: Cached<ProgramProbe> | undefined;
  private checks: Cached<ProviderCheck[]> | undefined;

  constructor(
    readonly config: Config,
    options: ProviderRegistryOptions = {},
  ) {
    this.options = { ...defaultProviderRegistryOptions, modelAliases: {}, ...options };
  }

  /** The folder a catalog model is expected in. */
  modelDir(modelId: string): string {
    return resolve(this.config.modelsDir, this.options.modelAliases[modelId] ?? modelId);
  }

  /** Every catalog provider (of one capability when given) with what is usable here. */
  async availability(capability?: Capability): Promise<ProviderAvailability[]> {
    const wanted = catalog.filter((p) => capability === undefined || p.capability === capability);
    return Promise.all(wanted.map((info) => this.available(info)));
  }

  /** Probes every provider concurrently; results are reused for `checkCacheMs` after they complete. */
  async check(): Promise<ProviderCheck[]> {
    const cached = this.checks;
    if (
      cached !== undefined &&
      (cached.settledAt === undefined || Date.now() - cached.settledAt < this.options.checkCacheMs)
    ) {
      return cached.value;
    }
    const entry: Cached<ProviderCheck[]> = { value: this.runChecks(), settledAt: undefined };
    this.checks = entry;
    entry.value.then(
      () => (entry.settledAt = Date.now()),
      () => {
        if (this.checks === entry) this.checks = undefined;
      },
    );
    return entry.value;
  }

  private async available(info: ProviderInfo): Promise<ProviderAvailability> {
    const base = {
      capability: info.capability,
      provider: info.provider,
      label: info.label,
      kind: info.kind,
      models: [...info.models],
      default_model: info.defaultModel,
      voices: [...info.voices],
      default_voice: info.defaultVoice,
      any_model: info.anyModel,
    };
    if (info.kind === 'remote') {
      const reason = this.remoteReason();
      return { ...base, configured: reason === null, reason };
    }
    if (info.kind === 'binary') {
      const probe = await this.probeProgram();
      const voices = probe.voices.length > 0 ? probe.voices : base.voices;
      const defaultVoice =
        info.defaultVoice !== null && voices.includes(info.defaultVoice) ? info.defaultVoice : (voices[0] ?? null);
      return { ...base, voices, default_voice: defaultVoice, configured: probe.ok, reason: probe.problem };
    }
    const states = await Promise.all(info.models.map((id) => this.modelState(id)));
    const installed = states.filter((s) => s.installed).map((s) => s.id);
    if (installed.length === 0) return { ...base, configured: false, reason: this.missingModelReason(info) };
    const defaultModel =
      info.defaultModel !== null && installed.includes(info.defaultModel) ? info.defaultModel : (installed[0] ?? null);
    return { ...base, models: installed, default_model: defaultModel, configured: true, reason: null };
  }

  private remoteReason(): string | null {
    const { apiKey, baseUrl } = this.config.openai;
    if (apiKey !== undefined || baseUrl !== undefined) return null;
    return 'set OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL (any OpenAI-compatible server)';
  }

  private missingModelReason(info: ProviderInfo): string {
    return (
      `no model installed in MODELS_DIR: expected a folder with config.json and onnx/ for one of ` +
      `${info.models.join(', ')} (npm run models downloads them)`
    );
  }

  private async modelState(id: string): Promise<ModelState> {
    const dir = this.modelDir(id);
    const [config, onnx] = await Promise.all([isFile(join(dir, 'config.json')), isDirectory(join(dir, 'onnx'))]);
    return { id, installed: config && onnx };
  }

  /** `espeak-ng --version`, then its installed voices; cached for `programCacheMs`. */
  private probeProgram(): Promise<ProgramProbe> {
    const cached = this.program;
    if (
      cached !== undefined &&
      (cached.settledAt === undefined || Date.now() - cached.settledAt < this.options.programCacheMs)
    ) {
      return cached.value;
    }
    const entry: Cached<ProgramProbe> = { value: this.runProgramProbe(), settledAt: undefined };
    this.program = entry;
    void entry.value.then(() => (entry.settledAt = Date.now()));
    return entry.value;
  }

  private async runProgramProbe(): Promise<ProgramProbe> {
    const bin = this.config.espeakBin;
    const timeoutMs = this.options.probeTimeoutMs;
    try {
      await run(bin, ['--version'], timeoutMs);
    } catch (err) {
      return { ok: false, problem: `PARLEY_ESPEAK_BIN (${bin}) did not run: ${describeError(err)}`, voices: [] };
    }
    const voices = await run(bin, ['--voices'], timeoutMs).then(
      (out) => parseEspeakVoices(out.toString('utf8')),
      () => [],
    );
    return { ok: true, problem: null, voices };
  }

  private async runChecks(): Promise<ProviderCheck[]> {
    let remote: Promise<Omit<ProviderCheck, 'capability' | 'provider'>> | undefined;
    return Promise.all(
      catalog.map(async (info): Promise<ProviderCheck> => {
        const id = { capability: info.capability, provider: info.provider };
        try {
          if (info.kind === 'remote') {
            remote ??= this.checkRemote(); // one request serves every OpenAI-compatible capability
            return { ...id, ...(await remote) };
          }
          if (info.kind === 'binary') return { ...id, ...(await this.checkProgram(info)) };
          return { ...id, ...(await this.checkLocal(info)) };
        } catch (err) {
          return { ...id, status: 'error', latency_ms: null, detail: describeError(err) };
        }
      }),
    );
  }

  private async checkRemote(): Promise<Omit<ProviderCheck, 'capability' | 'provider'>> {
    const reason = this.remoteReason();
    if (reason !== null) return { status: 'not_configured', latency_ms: null, detail: reason };
    const { apiKey, baseUrl } = this.config.openai;
    const url = `${(baseUrl ?? defaultOpenAiBaseUrl).replace(/\/+$/, '')}/models`;
    const start = performance.now();
    try {
      const res = await fetch(url, {
        headers: apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` },
        signal: AbortSignal.timeout(this.options.probeTimeoutMs),
      });
      await res.body?.cancel();
      const latency = round(performance.now() - start);
      if (res.ok) return { status: 'ok', latency_ms: latency, detail: null };
      return { status: 'error', latency_ms: latency, detail: `GET /models answered HTTP ${res.status}` };
    } catch (err) {
      const detail =
        err instanceof Error && err.name === 'TimeoutError'
          ? `no answer within ${this.options.probeTimeoutMs} ms`
          : describeError(err);
      return { status: 'error', latency_ms: null, detail: `GET /models failed: ${detail}` };
    }
  }

  /** Synthesizes one word to stdout and checks a WAV came back. */
  private async checkProgram(info: ProviderInfo): Promise<Omit<ProviderCheck, 'capability' | 'provider'>> {
    const probe = await this.probeProgram();
    if (!probe.ok) return { status: 'not_configured', latency_ms: null, detail: probe.problem };
    const voices = probe.voices.length > 0 ? probe.voices : info.voices;
    const voice = info.defaultVoice !== null && voices.includes(info.defaultVoice) ? info.defaultVoice : voices[0];
    const start = performance.now();
    try {
      const wav = await run(
        this.config.espeakBin,
        ['--stdout', ...(voice === undefined ? [] : ['-v', voice]), 'ok'],
        this.options.probeTimeoutMs,
      );
      const latency = round(performance.now() - start);
      if (wav.length > 44 && wav.subarray(0, 4).toString('latin1') === 'RIFF')
        return { status: 'ok', latency_ms: latency, detail: null };
      return { status: 'error', latency_ms: latency, detail: `synthesis produced no audio (${wav.length} bytes)` };
    } catch (err) {
      return { status: 'error', latency_ms: null, detail: `synthesis failed: ${describeError(err)}` };
    }
  }

  /** Installed models' files are present and readable; loading them is the pipeline's job. */
  private async checkLocal(info: ProviderInfo): Promise<Omit<ProviderCheck, 'capability' | 'provider'>> {
    const start = performance.now();
    const states = await Promise.all(info.models.map((id) => this.modelState(id)));
    const installed = states.filter((s) => s.installed).map((s) => s.id);
    if (installed.length === 0)
      return { status: 'not_configured', latency_ms: null, detail: this.missingModelReason(info) };
    const problems = (await Promise.all(installed.map((id) => this.unreadable(id)))).filter(
      (p): p is string => p !== null,
    );
    const latency = round(performance.now() - start);
    if (problems.length > 0) return { status: 'error', latency_ms: latency, detail: problems.join('; ') };
    return { status: 'ok', latency_ms: latency, detail: `installed: ${installed.join(', ')}` };
  }

  /** Why a model folder cannot be used, or null when config.json and at least one .onnx file are readable. */
  private async unreadable(id: string): Promise<string | null> {
    const dir = this.modelDir(id);
    try {
      await access(join(dir, 'config.json'), constants.R_OK);
    } catch {
      return `${id}: config.json is not readable`;
    }
    // A missing or unreadable onnx/ folder is reported just below as having no .onnx file.
    const files = await readdir(join(dir, 'onnx')).catch(() => [] as string[]);
    const onnx = files.filter((f) => f.endsWith('.onnx'));
    if (onnx.length === 0) return `${id}: no .onnx file in onnx/`;
    const readable = await Promise.all(
      onnx.map((f) =>
        access(join(dir, 'onnx', f), constants.R_OK).then(
          () => true,
          () => false,
        ),
      ),
    );
    return readable.some(Boolean) ? null : `${id}: no readable .onnx file in onnx/`;
  }
}
