import type { Config } from '../config.js';
import { providers as catalog, type Capability } from '../records/provider-catalog.js';
import { EspeakProbe } from './espeak/espeak-probe.js';
import { FliteProbe } from './flite/flite-probe.js';
import { providerAvailability, type ProviderAvailability, type StatusSources } from './status/availability.js';
import { runHealthChecks, type ProviderCheck } from './status/health-checks.js';
import { ModelFolders } from './status/model-folders.js';
import { SettledCache } from './status/settled-cache.js';
import { chooseBuiltIn, type BuiltInPreset } from './built-in/built-in-preset.js';
import { Usability } from './built-in/usability.js';

export type { ProviderAvailability } from './status/availability.js';
export type { ProviderCheck } from './status/health-checks.js';

export interface ProviderRegistryOptions {
  /**
   * Catalog model id → folder under `modelsDir`, for folders not named after the model id
   * (test fixtures, renamed downloads). Ids not listed map to `<modelsDir>/<model id>`.
   */
  modelAliases?: Readonly<Record<string, string>>;
  /** How long `check()` results are reused after they complete. */
  checkCacheMs?: number;
  /** Time limit of each probe (HTTP request to the remote API, espeak-ng or flite run). */
  probeTimeoutMs?: number;
  /** How long the result of `espeak-ng --version` / `--voices` and `flite -lv` is reused. */
  programCacheMs?: number;
}

const defaults = { checkCacheMs: 5_000, probeTimeoutMs: 3_000, programCacheMs: 60_000 } as const;

/**
 * What this deployment can run: the catalog of every provider Parley implements, each marked
 * configured or not (`availability`, for presets/available: status/availability.ts), live probes
 * of them (`check`, for /health/providers: status/health-checks.ts), and where local models live
 * (`modelDir`). Probes never load models or send audio anywhere; they are cached so the public
 * health endpoint cannot be used to hammer upstreams.
 */
export class ProviderRegistry {
  private readonly sources: StatusSources;
  private readonly checks: SettledCache<ProviderCheck[]>;
  private readonly usable: SettledCache<Usability>;
  private readonly probeTimeoutMs: number;
  private chosen: Promise<BuiltInPreset> | undefined;

  constructor(
    readonly config: Config,
    options: ProviderRegistryOptions = {},
  ) {
    const o = { ...defaults, ...options };
    this.probeTimeoutMs = o.probeTimeoutMs;
    this.sources = {
      config,
      folders: new ModelFolders(config.modelsDir, options.modelAliases),
      espeak: new EspeakProbe(config.espeakBin, o.probeTimeoutMs, o.programCacheMs),
      flite: new FliteProbe(config.fliteBin, o.probeTimeoutMs, o.programCacheMs),
    };
    this.checks = new SettledCache(o.checkCacheMs);
    this.usable = new SettledCache(o.checkCacheMs);
  }

  /** What can run here (reused for `checkCacheMs`): why a preset section cannot, for readiness. */
  usability(): Promise<Usability> {
    return this.usable.get(async () => new Usability(await this.availability()));
  }

  /**
   * The built-in preset (agents without a preset): per capability the first provider usable on
   * this box, chosen once, at start-up (installing a model or a package takes a restart).
   */
  builtIn(): Promise<BuiltInPreset> {
    if (this.chosen === undefined) {
      const chosen = this.usability().then(chooseBuiltIn);
      // Not kept when it failed: the next caller chooses again (the caller sees the rejection).
      chosen.catch(() => (this.chosen === chosen ? (this.chosen = undefined) : undefined));
      this.chosen = chosen;
    }
    return this.chosen;
  }

  /** The folder a catalog model is expected in. */
  modelDir(modelId: string): string {
    return this.sources.folders.dir(modelId);
  }

  /** Every catalog provider (of one capability when given) with what is usable here. */
  async availability(capability?: Capability): Promise<ProviderAvailability[]> {
    const wanted = catalog.filter((p) => capability === undefined || p.capability === capability);
    return Promise.all(wanted.map((info) => providerAvailability(info, this.sources)));
  }

  /** Probes every provider concurrently; results are reused for `checkCacheMs` after they complete. */
  check(): Promise<ProviderCheck[]> {
    return this.checks.get(() => runHealthChecks(this.sources, this.probeTimeoutMs));
  }
}
