import type { z } from 'zod';
import type { Config } from '../../config/config.js';
import type { providerAvailabilitySchema } from '../../schemas/preset.js';
import type { ProviderInfo } from '../../schemas/provider-catalog.js';
import type { EspeakProbe } from '../espeak/espeak-probe.js';
import type { FliteProbe } from '../flite/flite-probe.js';
import { realtimeReason } from '../openai-realtime/realtime-connection.js';
import { deepgramProblem } from '../deepgram/deepgram-options.js';
import { elevenLabsProblem } from '../elevenlabs/elevenlabs-probe.js';
import { pocketsphinxProblem } from '../pocketsphinx/sphinx-probe.js';
import { ModelFolders } from './model-folders.js';
import type { ModelSnapshot } from './model-inventory.js';

export type ProviderAvailability = z.infer<typeof providerAvailabilitySchema>;

/** What the availability and health checks read about this deployment. */
export interface StatusSources {
  config: Config;
  espeak: EspeakProbe;
  flite: FliteProbe;
}

/** The probe of a local program's provider (catalog kind `binary`): espeak-ng or flite. */
export function programOf(info: ProviderInfo, from: StatusSources): EspeakProbe | FliteProbe {
  return info.provider === 'flite' ? from.flite : from.espeak;
}

/** Why the OpenAI-compatible providers cannot be used here, or null when they can. */
export function remoteReason(config: Config): string | null {
  const { apiKey, baseUrl } = config.openai;
  if (apiKey !== undefined || baseUrl !== undefined) return null;
  return 'set OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL (any OpenAI-compatible server)';
}

/** Why a remote provider cannot be used here: Deepgram needs its key or address, the others OpenAI's. */
export function remoteReasonOf(info: ProviderInfo, config: Config): string | null {
  return info.provider === 'deepgram' ? deepgramProblem(config.deepgram) : remoteReason(config);
}

/**
 * A catalog provider marked configured or not, for `presets/available`: remote ones need an
 * OpenAI key or base URL (`openai-realtime`: the key or its own URL; Deepgram its own key or
 * address; `elevenlabs` its own key), espeak-ng and flite need to run (their voices are the
 * installed ones), local ones list the models the snapshot found installed (with every model
 * found, invalid ones too, in `local_models`). Loads no model and calls no upstream.
 */
export async function providerAvailability(
  info: ProviderInfo,
  from: StatusSources,
  models: ModelSnapshot,
): Promise<ProviderAvailability> {
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
    local_models: [],
  };
  if (info.provider === 'openai-realtime') {
    const reason = realtimeReason(from.config.openaiRealtime);
    return { ...base, configured: reason === null, reason };
  }
  if (info.kind === 'remote') {
    const reason = info.provider === 'elevenlabs' ? elevenLabsProblem(from.config) : remoteReasonOf(info, from.config);
    return { ...base, configured: reason === null, reason };
  }
  if (info.provider === 'pocketsphinx') {
    const reason = await pocketsphinxProblem(from.config.pocketsphinx.modelDir);
    return { ...base, configured: reason === null, reason };
  }
  if (info.kind === 'binary') {
    const probe = await programOf(info, from).probe();
    const voices = probe.voices.length > 0 ? probe.voices : base.voices;
    const defaultVoice =
      info.defaultVoice !== null && voices.includes(info.defaultVoice) ? info.defaultVoice : (voices[0] ?? null);
    return { ...base, voices, default_voice: defaultVoice, configured: probe.ok, reason: probe.problem };
  }
  const found = models.of(info);
  const installed = found.filter((m) => m.status === 'installed').map((m) => m.model);
  const local = { ...base, local_models: found.map((m) => ({ ...m })) };
  if (installed.length === 0) {
    const invalid = found.map((m) => `${m.model} is invalid: ${m.problem ?? ''}`);
    const reason = invalid.length > 0 ? invalid.join('; ') : ModelFolders.missingReason(info);
    return { ...local, configured: false, reason };
  }
  const defaultModel =
    info.defaultModel !== null && installed.includes(info.defaultModel) ? info.defaultModel : (installed[0] ?? null);
  return { ...local, models: installed, default_model: defaultModel, configured: true, reason: null };
}
