/**
 * One talked-over answer, in process, on the real parts a voice session decides barge-in with:
 * the microphone graph (real Silero VAD, the agent's default VAD and turn-taking settings, smart
 * endpointing), the streaming recogniser's segment transcripts (pocketsphinx, phone-line
 * decoders) and the session machine with the session's own check actors (voice-checks.ts). The
 * agent's answer is a stand-in that has started to play and never ends. `rule: 'final'` runs the
 * machine without the `overhearing` actor: the rule before it (the transcript at the end of the
 * speech decides). Times are stream times: ms of the caller's audio fed when an event came.
 */
import { EMPTY, from, NEVER, Observable, Subject } from 'rxjs';
import { createActor, fromEventObservable } from 'xstate';
import { pino } from 'pino';
import { sessionMachine, type ReplyInput, type SessionEvent } from '../../machines/session.machine.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import type { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import type { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { defaultAgentSettings, type StoredAgent } from '../../src/records/agent.js';
import { sessionMachineInput } from '../../src/sessions/machine-input.js';
import { SegmentTranscripts } from '../../src/sessions/segment-transcripts.js';
import { sessionInput } from '../../src/sessions/session-input.js';
import type { MediaTransport } from '../../src/sessions/transport/media-transport.js';
import { checkActors } from '../../src/sessions/voice-checks.js';
import { corpusRate } from './corpus.js';

export type Rule = 'partial' | 'final';
export type Decided = 'playback_paused' | 'playback_resumed' | 'interrupted';

const agent = defaultAgentSettings as unknown as StoredAgent;
const logger = pino({ level: 'silent' });

export class BargeInRig {
  /** What the machine decided, each with the stream time (ms of audio fed) it came at and the words it decided on. */
  readonly decided: { type: Decided; atMs: number; on: string | null }[] = [];
  /** The last words the machine was told: a hypothesis so far (`…` at the end) or a transcript. */
  #words: string | null = null;
  #fedMs = 0;
  readonly #audio$ = new Subject<AudioFrame>();
  readonly #stop: () => void;

  constructor(vad: SileroVad, stt: PocketsphinxStt, rule: Rule) {
    const request = { sampleRate: 16_000, model: 'en-us', language: null, capturedRate: corpusRate };
    const transcripts = new SegmentTranscripts(stt, request, logger);
    const transport = { audio$: this.#audio$, messages$: NEVER, closed$: NEVER } as unknown as MediaTransport;
    const stages = {
      transcribe: (audio: Int16Array, startMs?: number) =>
        from(
          (startMs === undefined ? null : transcripts.transcript(audio, startMs)) ??
            stt.transcribe({ ...request, audio }),
        ),
    };
    const checks = checkActors({
      deps: { endOfTurn: undefined, logger },
      stages,
      transcripts,
      soFar: undefined,
      transport: { send: () => undefined },
      logged: (events) => events,
    });
    const machine = sessionMachine.provide({
      actors: {
        ...checks,
        overhearing: rule === 'partial' ? checks.overhearing : fromEventObservable<SessionEvent, void>(() => EMPTY),
        listen: fromEventObservable<SessionEvent, void>(() =>
          sessionInput(transport, {
            vad,
            vadOptions: {
              threshold: agent.vad_threshold,
              minSilenceMs: agent.transcription_silence_ms,
              prefixPaddingMs: agent.prefix_padding_ms,
              maxUtteranceMs: agent.max_utterance_ms,
            },
            stats: { droppedFrames: 0, droppedMs: 0 },
            now: () => performance.now(),
            onOverrun: () => undefined,
            tap: transcripts,
          }),
        ),
        // the agent's answer: playing from the start, never done
        reply: fromEventObservable<SessionEvent, ReplyInput>(
          () => new Observable<SessionEvent>((s) => s.next({ type: 'AUDIO_STARTED' })),
        ),
      },
    });
    const actor = createActor(machine, {
      input: sessionMachineInput(agent),
      inspect: (e) => {
        if (e.type !== '@xstate.event') return;
        const event = e.event as SessionEvent;
        if (event.type === 'OVERHEARING') this.#words = `${event.partial}…`;
        if (event.type === 'OVERHEARD') this.#words = event.text;
      },
    });
    for (const type of ['playback_paused', 'playback_resumed', 'interrupted'] as const)
      actor.on(type, () => this.decided.push({ type, atMs: this.#fedMs, on: this.#words }));
    actor.start();
    actor.send({ type: 'TEXT', text: 'tell me about your menu', receivedAt: performance.now() });
    this.#stop = () => {
      actor.stop();
      transcripts.close();
    };
  }

  /** One frame of the caller's line (phone rate), as it arrives. */
  feed(samples: Int16Array): void {
    this.#audio$.next({ samples, sampleRate: corpusRate });
    this.#fedMs += (samples.length * 1000) / corpusRate;
  }

  close(): void {
    this.#stop();
  }
}
