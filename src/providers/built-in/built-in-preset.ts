import type { StoredPreset } from '../../schemas/preset.js';
import type { ProviderAvailability } from '../status/availability.js';
import type { Usability } from './usability.js';

/** The capabilities the built-in preset chooses a provider for (embeddings: PARLEY_EMBEDDING_*). */
export const builtInCapabilities = ['stt', 'llm', 'tts'] as const;
export type BuiltInCapability = (typeof builtInCapabilities)[number];

/**
 * The order in which the built-in preset takes the first provider usable on this box: a local
 * model when it is installed (best quality, offline), else an OpenAI-compatible server when one is
 * configured, else the programs Debian packages (weaker, but zero download).
 */
export const builtInOrder: Readonly<Record<BuiltInCapability, readonly string[]>> = {
  stt: ['local-whisper', 'openai', 'pocketsphinx'],
  llm: ['openai', 'local-llama'],
  tts: ['local-vits', 'openai', 'flite', 'espeak'],
};

/** What the built-in preset took for one capability, and whether it works here. */
export interface BuiltInChoice {
  provider: string;
  model: string;
  usable: boolean;
  /** Why nothing in the order is usable (each provider's reason); null when the choice works. */
  problem: string | null;
}

export type BuiltInSettings = Pick<StoredPreset, 'stt' | 'llm' | 'tts'>;

/** The pipeline agents without a preset use, with the choice made per capability. */
export interface BuiltInPreset extends BuiltInSettings {
  choices: Record<BuiltInCapability, BuiltInChoice>;
}

/**
 * Takes, per capability, the first provider in `builtInOrder` that is usable here with its default
 * model (the installed one for local models) and voice. When none is, the first in the order is
 * kept and its choice says why each one cannot run, so readiness and health report it.
 */
export function chooseBuiltIn(usability: Usability): BuiltInPreset {
  const pick = (capability: BuiltInCapability) => {
    const entries = builtInOrder[capability].map((p) => usability.of(capability, p));
    const usable = entries.find((e) => e?.configured === true);
    const entry = usable ?? entries[0];
    if (entry === undefined)
      throw new Error(`the catalog has no ${capability} provider ${builtInOrder[capability][0]}`);
    const problem =
      usable !== undefined
        ? null
        : `no ${capability} provider is usable here: ` +
          entries.map((e) => (e === undefined ? '' : `${e.provider}: ${e.reason ?? 'not usable'}`)).join('; ');
    return { entry, choice: choiceOf(entry, problem) };
  };
  const stt = pick('stt');
  const llm = pick('llm');
  const tts = pick('tts');
  return {
    stt: { provider: stt.entry.provider, model: stt.choice.model, language: null },
    llm: { provider: llm.entry.provider, model: llm.choice.model, temperature: 0.7, max_tokens: 512 },
    tts: {
      provider: tts.entry.provider,
      model: tts.choice.model,
      voice: tts.entry.default_voice ?? tts.entry.voices[0] ?? 'default',
      speed: 1,
    },
    choices: { stt: stt.choice, llm: llm.choice, tts: tts.choice },
  };
}

function choiceOf(entry: ProviderAvailability, problem: string | null): BuiltInChoice {
  const model = entry.default_model ?? entry.models[0] ?? entry.provider;
  return { provider: entry.provider, model, usable: problem === null, problem };
}

/** The settings alone (what a session or a new preset copies), without the choices. */
export function builtInSettings(preset: BuiltInPreset): BuiltInSettings {
  return { stt: { ...preset.stt }, llm: { ...preset.llm }, tts: { ...preset.tts } };
}
