import type { PipelineSettingsOf } from '../agents/pipeline-settings.js';
import type { Logger } from 'pino';
import type { EventOutbox } from '../events/outbox.js';
import type { AudioBacklog } from '../pipeline/intake/audio-backlog.js';
import type { IntakeLimits } from '../pipeline/intake/limits.js';
import type { PlayoutOptions } from '../pipeline/reply/playout.js';
import type { EndOfTurnModel } from '../pipeline/turn/end-of-turn-model.js';
import type { SentenceEndLm } from '../pipeline/turn/sentence-end-lm.js';
import type { SileroVad } from '../pipeline/vad/silero-vad.js';
import type { SpeechProviders } from '../providers/speech-providers.js';
import type { SpeechLimits } from '../providers/guarded-providers.js';
import type { RagService } from '../rag/rag-service.js';
import type { Responder } from '../respond/responder.js';
import type { Store } from '../store/store.js';
import type { SessionRecorder } from '../session-writes/turn-recorder.js';
import type { Recordings } from '../call-recordings/recordings.js';

/** What every voice session of a process shares. */
export interface VoiceSessionDeps {
  store: Store;
  outbox: EventOutbox;
  responder: Responder;
  /** The agent's STT, LLM and TTS settings (its preset's, or the built-in preset's). */
  settings: Pick<PipelineSettingsOf, 'of'>;
  speech: SpeechProviders;
  vad: SileroVad;
  /** Retrieval for agents with RAG on (the same as chat's). */
  rag: Pick<RagService, 'retrieveContext'>;
  logger: Logger;
  /** Writes every turn: the process's one recorder, so shutdown drains its writes. */
  recorder: Pick<SessionRecorder, 'ended' | 'writes' | 'inQueue'>;
  /** Bounds on inbound audio (defaults: `defaultIntakeLimits`). */
  intake?: Partial<IntakeLimits> | undefined;
  /** The process-wide backlog of audio waiting for the VAD (default: `processBacklog`). */
  backlog?: AudioBacklog | undefined;
  /** Frame size and lead of the audio sent (default: 20 ms frames, 120 ms ahead). */
  playout?: Partial<Omit<PlayoutOptions, 'sampleRate' | 'paused$'>> | undefined;
  /** Consulted at the short silence in smart endpointing when present (e.g. Smart Turn v3). */
  endOfTurn?: EndOfTurnModel | undefined;
  /** The recogniser's language model, for the statement-end rule (statement-end.ts); absent: the words alone decide. */
  sentenceEnds?: SentenceEndLm | undefined;
  /** How long STT and TTS calls may take (default: `defaultSpeechLimits`). */
  limits?: SpeechLimits | undefined;
  /** Call recordings, for agents with `recording` on; absent: nothing is recorded. */
  recordings?: Pick<Recordings, 'open'> | undefined;
}
