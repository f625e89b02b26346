import type { BuiltInPreset } from '../providers/built-in/built-in-preset.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { StoredPreset } from '../schemas/preset.js';
import type { Store } from '../store/store.js';

/** The STT, LLM and TTS settings an agent runs with. */
export type PipelineSettings = Pick<StoredPreset, 'stt' | 'llm' | 'tts'>;

/**
 * The one way to know an agent's providers: its preset's sections, or the built-in preset's
 * (the first usable here now, see ProviderRegistry.builtIn) for an agent without one. A preset that cannot be
 * read (deleted, Redis down) throws: callers fail the turn or session rather than quietly run
 * with other providers.
 */
export class PipelineSettingsOf {
  constructor(
    private readonly store: Pick<Store, 'presets'>,
    private readonly builtIn: () => Promise<BuiltInPreset>,
  ) {}

  async of(agent: Pick<StoredAgent, 'preset_id'>): Promise<PipelineSettings> {
    if (agent.preset_id === null) {
      const { stt, llm, tts } = await this.builtIn();
      return { stt: { ...stt }, llm: { ...llm }, tts: { ...tts } };
    }
    const preset = await this.store.presets.getStored(agent.preset_id);
    return { stt: preset.stt, llm: preset.llm, tts: preset.tts };
  }
}
