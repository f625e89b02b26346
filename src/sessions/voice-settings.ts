import { builtInPreset } from '../providers/catalog.js';
import type { StoredAgent } from '../records/agent.js';
import type { StoredPreset } from '../records/preset.js';
import type { Store } from '../store/store.js';

/** The provider settings a voice session runs with, read once when it starts. */
export type VoiceSettings = Pick<StoredPreset, 'stt' | 'llm' | 'tts'>;

/**
 * The agent's preset (or the built-in one for an agent without a preset), read once per session so
 * that no turn waits on Redis for it. A preset that cannot be read (deleted, Redis down) throws:
 * the session fails with an error record rather than quietly speaking with other providers.
 */
export async function resolveVoiceSettings(store: Store, agent: StoredAgent): Promise<VoiceSettings> {
  if (agent.preset_id === null) {
    return { stt: { ...builtInPreset.stt }, llm: { ...builtInPreset.llm }, tts: { ...builtInPreset.tts } };
  }
  const preset = await store.presets.getStored(agent.preset_id);
  return { stt: preset.stt, llm: preset.llm, tts: preset.tts };
}
