import type { Config } from '../config/config.js';
import { findProvider, providers as catalog, type Capability } from '../schemas/provider-catalog.js';
import { EspeakProbe } from './espeak/espeak-probe.js';
import { FliteProbe } from './flite/flite-probe.js';
import { readModelManifest, type ModelManifest } from './models/model-manifest.js';
import { providerAvailability, type ProviderAvailability, type StatusSources } from './status/availability.js';
import { providerChecks, runProbes, type ProviderCheck } from './status/health-checks.js';
import { ModelFolders } from './status/model-folders.js';
import { ModelInventory, type ModelSnapshot } from './status/model-inventory.js';
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
  /** The sizes and sha256 model files are pinned to (default: models/manifest.json). */
  manifest?: ModelManifest;
  /** How long a scan of MODELS_DIR is reused: a model copied in or changed is seen within this. */
  modelScanMs?: number;
  /** How long `check()` results of remote and program probes are reused after they complete. */
  checkCacheMs?: number;
  /** Time limit of each probe (HTTP request to the remote API, espeak-ng or flite run). */
  probeTimeoutMs?: number;
  /** How long the result of `espeak-ng --version` / `--voices` and `flite -lv` is reused. */
  programCacheMs?: number;
}

const defaults = { modelScanMs: 1_000, checkCacheMs: 5_000, probeTimeoutMs: 3_000, programCacheMs: 60_000 } as const;

/**
 * What this deployment can run: the catalog of every provider Parley implements, each marked
 * configured or not (`availability`, for presets/available: status/availability.ts), live probes
 * of them (`check`, for /health/providers: status/health-checks.ts), and where local models live
 * (`modelDir`, `modelFile`). Local model status has one source, the model snapshot
 * (status/model-inventory.ts): availability, usability (readiness), the built-in preset and the
 * health checks all derive from the same snapshot, so they agree at every moment, and a model
 * copied in or changed is seen by all of them within `modelScanMs`, without a restart. Probes
 * never load models or send audio anywhere; they are cached so the public health endpoint cannot
 * be used to hammer upstreams.
 */
export class ProviderRegistry {
  private readonly sources: StatusSources;
  private readonly folders: ModelFolders;
  private readonly models: ModelInventory;
  private readonly probes: SettledCache<ProviderCheck[]>;
  private readonly usable: SettledCache<Usability>;
  /** The snapshot key `usable` was built from: another one clears it. */
  private usableKey: string | undefined;
  private builtInFor: { usability: Usability; preset: BuiltInPreset } | undefined;
  private readonly probeTimeoutMs: number;

  constructor(
    readonly config: Config,
    options: ProviderRegistryOptions = {},
  ) {
    const o = { ...defaults, ...options };
    this.probeTimeoutMs = o.probeTimeoutMs;
    this.folders = new ModelFolders(config.modelsDir, options.modelAliases);
    this.models = new ModelInventory(this.folders, options.manifest ?? readModelManifest(), o.modelScanMs);
    this.sources = {
      config,
      espeak: new EspeakProbe(config.espeakBin, o.probeTimeoutMs, o.programCacheMs),
      flite: new FliteProbe(config.fliteBin, o.probeTimeoutMs, o.programCacheMs),
    };
    this.probes = new SettledCache(o.checkCacheMs);
    this.usable = new SettledCache(o.checkCacheMs);
  }

  /**
   * What can run here: why a preset section cannot, for readiness. Rebuilt when the model snapshot
   * changes, else reused for `checkCacheMs` (the program probes' part).
   */
  async usability(): Promise<Usability> {
    const models = await this.models.current();
    if (models.key !== this.usableKey) {
      this.usable.clear();
      this.usableKey = models.key;
    }
    return this.usable.get(async () => new Usability(await this.availabilityOf(models)));
  }

  /**
   * The built-in preset (agents without a preset): per capability the first provider usable on
   * this box now. Chosen again whenever what is usable changes (a model copied into MODELS_DIR,
   * a program installed), so it never lags behind readiness.
   */
  async builtIn(): Promise<BuiltInPreset> {
    const usability = await this.usability();
    if (this.builtInFor?.usability !== usability) this.builtInFor = { usability, preset: chooseBuiltIn(usability) };
    return this.builtInFor.preset;
  }

  /** The folder a catalog model is expected in. */
  modelDir(modelId: string): string {
    return this.folders.dir(modelId);
  }

  /** The file of a single-file model (local-llama: the catalog file, or a .gguf under MODELS_DIR); undefined when the id names none. */
  modelFile(capability: Capability, provider: string, modelId: string): string | undefined {
    const info = findProvider(capability, provider);
    return info === undefined ? undefined : this.folders.file(info, modelId);
  }

  /**
   * Why a local model must not be loaded now, from the current snapshot (what readiness says too):
   * it is invalid (a pinned file of the wrong size or sha256, a file that is not a GGUF), or it is
   * not there; null when it is installed.
   */
  async modelProblem(capability: Capability, provider: string, modelId: string): Promise<string | null> {
    const state = (await this.models.current()).model({ capability, provider }, modelId);
    if (state?.status === 'installed') return null;
    if (state?.status === 'invalid') return `model ${modelId} is invalid: ${state.problem ?? ''}`;
    const where = this.modelFile(capability, provider, modelId) ?? this.folders.dir(modelId);
    return `model not installed: ${where} is missing (run \`npm run models\`, or point MODELS_DIR at the models)`;
  }

  /**
   * Why a preset section's model, a GGUF file of the operator's own, cannot be saved: the file is
   * not under MODELS_DIR, or is not a GGUF model. Null for catalog models (`npm run models` may
   * fetch them later) and for providers that take no files.
   */
  async ownModelProblem(capability: Capability, provider: string, modelId: string): Promise<string | null> {
    const info = findProvider(capability, provider);
    return info === undefined ? null : this.models.ownFileProblem(info, modelId);
  }

  /** The current model snapshot's key: it changes when a model appears, changes, turns invalid or goes. */
  async modelsKey(): Promise<string> {
    return (await this.models.current()).key;
  }

  /** Every catalog provider (of one capability when given) with what is usable here. */
  async availability(capability?: Capability): Promise<ProviderAvailability[]> {
    return this.availabilityOf(await this.models.current(), capability);
  }

  /** Every provider's check: remote and program probes reused for `checkCacheMs`, local models from the snapshot. */
  async check(): Promise<ProviderCheck[]> {
    const [probed, models] = await Promise.all([
      this.probes.get(() => runProbes(this.sources, this.probeTimeoutMs)),
      this.models.current(),
    ]);
    return providerChecks(probed, models);
  }

  private availabilityOf(models: ModelSnapshot, capability?: Capability): Promise<ProviderAvailability[]> {
    const wanted = catalog.filter((p) => capability === undefined || p.capability === capability);
    return Promise.all(wanted.map((info) => providerAvailability(info, this.sources, models)));
  }
}
