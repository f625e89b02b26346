import type { SessionMachineInput } from '../../machines/session.machine.js';
import type { StoredAgent } from '../schemas/agent.js';

/** The session machine's settings, read from the agent once when the session starts. */
export function sessionMachineInput(agent: StoredAgent): SessionMachineInput {
  return {
    greeting: agent.greeting,
    interruptionsEnabled: agent.interruptions_enabled,
    interruptionMinSpeechMs: agent.interruption_min_speech_ms,
    idleTimeoutMs: agent.idle_timeout_ms,
    maxDurationMs: agent.max_duration_ms,
    turnTaking: {
      smart: agent.endpointing_mode === 'smart',
      waits: {
        punctuationMs: agent.endpointing_punctuation_ms,
        numberMs: agent.endpointing_number_ms,
        maxMs: agent.endpointing_max_ms,
        defaultMs: agent.endpointing_default_ms,
      },
      smartTurnThreshold: agent.smart_turn_threshold,
      backchannelWords: agent.backchannel_words,
      stopWords: agent.stop_words,
    },
  };
}
