import { NotFoundError, nullIfNotFound } from '../errors/app-errors.js';
import type { Usability } from '../providers/built-in/usability.js';
import type { BuiltInPreset } from '../providers/built-in/built-in-preset.js';
import type { Capability } from '../schemas/provider-catalog.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { PipelineSettings, PipelineSettingsOf } from './pipeline-settings.js';

/** Whether an agent can serve one channel here, and every reason it cannot. */
export interface ChannelReadiness {
  ready: boolean;
  problems: string[];
}

export interface Readiness {
  voice: ChannelReadiness;
  chat: ChannelReadiness;
}

/** A provider an agent needs, for /health/providers' `needed_by`. */
export interface Need {
  capability: Capability;
  provider: string;
  /** Why it cannot serve this agent here; null when it can. */
  problem: string | null;
}

type ReadAgent = Pick<StoredAgent, 'id' | 'mode' | 'preset_id' | 'webhook_url'>;

interface Sources {
  usability(): Promise<Usability>;
  builtIn(): Promise<BuiltInPreset>;
}

/**
 * Whether an agent can serve voice and chat on this box, from its settings (its preset's or the
 * built-in preset's) and what can run here: voice needs STT and TTS, enhanced mode an LLM,
 * passthrough mode a webhook URL. Reads no network and loads no model (the registry's cached
 * availability), so every agent read can carry it.
 */
export class AgentReadiness {
  constructor(
    private readonly sources: Sources,
    private readonly settings: Pick<PipelineSettingsOf, 'of'>,
  ) {}

  async of(agent: ReadAgent): Promise<Readiness> {
    const { voice, chat } = await this.channels(agent);
    return { voice: channel(voice), chat: channel(chat) };
  }

  /** The providers the agent needs, each with why it cannot serve it (health's `needed_by`). */
  async needs(agent: ReadAgent): Promise<Need[]> {
    // A deleted preset needs nothing (its readiness says so); a Redis failure rejects.
    const settings = await this.settings.of(agent).catch(nullIfNotFound);
    if (settings === null) return [];
    const problemOf = await this.problems(agent);
    return neededSections(agent).map((capability) => ({
      capability,
      provider: settings[capability].provider,
      problem: problemOf(capability, settings),
    }));
  }

  /**
   * Why the agent's LLM cannot run here, in readiness' words (for the built-in preset: every
   * provider it tried, each with its fix); null when it can, or the agent needs none. What a turn
   * that failed `llm_not_configured` tells the user (chat's 503, a voice turn's `error`).
   */
  async llmProblem(agent: ReadAgent): Promise<string | null> {
    if (agent.mode !== 'enhanced') return null;
    // A deleted preset is the readiness' own problem, not the LLM's; a Redis failure rejects.
    const settings = await this.settings.of(agent).catch(nullIfNotFound);
    return settings === null ? null : (await this.problems(agent))('llm', settings);
  }

  /** The problems of both channels, once each: what an agent create or update warns about. */
  static warnings(readiness: Readiness): string[] {
    return [...new Set([...readiness.voice.problems, ...readiness.chat.problems])];
  }

  private async channels(agent: ReadAgent): Promise<{ voice: string[]; chat: string[] }> {
    const webhook =
      agent.mode === 'passthrough' && agent.webhook_url === null ? ['passthrough mode needs a webhook_url'] : [];
    let settings: PipelineSettings;
    try {
      settings = await this.settings.of(agent);
    } catch (err) {
      // A deleted preset is said in the readiness itself; a Redis failure is the request's.
      if (!(err instanceof NotFoundError)) throw err;
      const problem = `preset ${agent.preset_id ?? ''} no longer exists: ${err.message}`;
      return { voice: [...webhook, problem], chat: [...webhook, problem] };
    }
    const problemOf = await this.problems(agent);
    const said = (capability: 'stt' | 'llm' | 'tts') => {
      const problem = problemOf(capability, settings);
      return problem === null ? [] : [`${capability}: ${problem}`];
    };
    const llm = agent.mode === 'enhanced' ? said('llm') : [];
    return { voice: [...webhook, ...said('stt'), ...llm, ...said('tts')], chat: [...webhook, ...llm] };
  }

  /** Why a section cannot run here: for the built-in preset, every provider it tried and its fix. */
  private async problems(agent: ReadAgent) {
    const [usability, builtIn] = await Promise.all([this.sources.usability(), this.sources.builtIn()]);
    return (capability: 'stt' | 'llm' | 'tts', settings: PipelineSettings): string | null => {
      if (agent.preset_id === null && !builtIn.choices[capability].usable) return builtIn.choices[capability].problem;
      const section = settings[capability];
      return usability.problem(capability, {
        provider: section.provider,
        model: section.model,
        ...('voice' in section ? { voice: section.voice } : {}),
      });
    };
  }
}

/** The sections an agent needs: STT and TTS for voice, the LLM in enhanced mode. */
function neededSections(agent: ReadAgent): ('stt' | 'llm' | 'tts')[] {
  return agent.mode === 'enhanced' ? ['stt', 'llm', 'tts'] : ['stt', 'tts'];
}

function channel(problems: string[]): ChannelReadiness {
  return { ready: problems.length === 0, problems };
}
