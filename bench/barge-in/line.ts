/**
 * One talked-over answer, in process, on the real parts a voice session decides barge-in with:
 * the microphone graph (real Silero VAD, the agent's default VAD and turn-taking settings, smart
 * endpointing), the streaming recogniser's segment transcripts (pocketsphinx, phone-line
 * decoders) and the session machine with the session's own check actors (voice-checks.ts). The
 * agent's answer is a stand-in that has started to play and never ends.
 *
 * One line, several machines: each rule is a machine of its own, and all of them hear the same
 * graph (one VAD stream, one recogniser stream per segment), so they differ by their rule alone,
 * never by what the VAD or the recogniser made of the audio. Times are stream times: ms of the
 * caller's audio fed when an event came.
 */
import { EMPTY, from, NEVER, Observable, share, Subject } from 'rxjs';
import { createActor, fromEventObservable, type Actor } from 'xstate';
import { pino } from 'pino';
import { sessionMachine, type ReplyInput, type SessionEvent } from '../../machines/session.machine.js';
import { interruptsSoFar, soFarRule, type SoFarRule } from '../../machines/turn-words/barge-in.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import type { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import type { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { defaultAgentSettings, type StoredAgent } from '../../src/schemas/agent.js';
import { sessionMachineInput } from '../../src/sessions/machine-input.js';
import { SegmentTranscripts } from '../../src/sessions/segment-transcripts.js';
import { sessionInput } from '../../src/sessions/session-input.js';
import type { MediaTransport } from '../../src/sessions/transport/media-transport.js';
import { checkActors, overhearingEvents } from '../../src/sessions/voice-checks.js';
import { corpusRate } from './corpus.js';

/**
 * `final`: the rule before (no `overhearing` actor: the transcript at the end of the speech
 * decides); `partial`: the hypothesis so far decides (the machine's rule: three words that say
 * something, or two once the speech has gone on `twoWordsAfterMs`); `partial-3`: three words only
 * (the rule before two late words counted); `partial-2`: two words at any time; `partial-any`: two
 * late words even after a lone letter (the rule before the murmur check); `duration`: what
 * a session whose STT cannot stream does (speech that goes on `longSpeechMs` without a pause
 * interrupts).
 */
export type Rule = 'final' | 'partial' | 'partial-3' | 'partial-2' | 'partial-any' | 'duration' | `late-${number}`;
export type Decided = 'playback_paused' | 'playback_resumed' | 'interrupted';

/** What one machine decided, each with the stream time it came at and the words it decided on. */
export type Decisions = { type: Decided; atMs: number; on: string | null }[];

const agent = defaultAgentSettings as unknown as StoredAgent;
const logger = pino({ level: 'silent' });

/** The variants of the machine's `realInterruptionSoFar` guard: words that interrupt, and from when two do. */
const variants: Partial<Record<Rule, SoFarRule>> = {
  'partial-3': { ...soFarRule, twoWordsAfterMs: Infinity },
  'partial-2': { ...soFarRule, words: 2, twoWordsAfterMs: 0 },
  'partial-any': { ...soFarRule, twoAfterMurmur: true },
};

function variantOf(rule: Rule): SoFarRule | undefined {
  const late = /^late-(\d+)$/.exec(rule);
  return late === null ? variants[rule] : { ...soFarRule, twoWordsAfterMs: Number(late[1]) };
}

/** The machine's `realInterruptionSoFar` guard with another rule. */
function guardOf(rule: SoFarRule) {
  return {
    realInterruptionSoFar: ({
      context,
      event,
    }: {
      context: { overlapLongEnough: boolean; turnTaking: { backchannelWords: readonly string[] } };
      event: SessionEvent;
    }) =>
      event.type === 'OVERHEARING' &&
      context.overlapLongEnough &&
      interruptsSoFar(event, context.turnTaking.backchannelWords, rule),
  };
}

export class BargeInLine {
  readonly decided = new Map<Rule, Decisions>();
  #fedMs = 0;
  readonly #audio$ = new Subject<AudioFrame>();
  readonly #actors: Actor<typeof sessionMachine>[] = [];
  readonly #transcripts: SegmentTranscripts;

  constructor(vad: SileroVad, stt: PocketsphinxStt, rules: readonly Rule[]) {
    const request = { sampleRate: 16_000, model: 'en-us', language: null, capturedRate: corpusRate };
    const transcripts = (this.#transcripts = new SegmentTranscripts(stt, request, logger));
    const transport = { audio$: this.#audio$, messages$: NEVER, closed$: NEVER } as unknown as MediaTransport;
    const heard$ = sessionInput(transport, {
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
      transcripts,
    }).pipe(share());
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
      transport: { send: () => undefined },
      logged: (events) => events,
    });
    for (const rule of rules) {
      const decided: Decisions = [];
      this.decided.set(rule, decided);
      let words: string | null = null;
      const machine = sessionMachine.provide({
        guards: variantOf(rule) === undefined ? {} : guardOf(variantOf(rule)!),
        actors: {
          ...checks,
          overhearing:
            rule === 'final'
              ? fromEventObservable<SessionEvent, void>(() => EMPTY)
              : rule === 'duration'
                ? fromEventObservable<SessionEvent, void>(() => overhearingEvents(null))
                : checks.overhearing,
          listen: fromEventObservable<SessionEvent, void>(() => heard$),
          // the agent's answer: playing from the start, never done
          reply: fromEventObservable<SessionEvent, ReplyInput>(
            () => new Observable<SessionEvent>((s) => s.next({ type: 'AUDIO_STARTED' })),
          ),
        },
      });
      const actor = createActor(machine, {
        input: sessionMachineInput(agent),
        // the words each decision was made on: a hypothesis so far (… at the end), a transcript, or none
        inspect: (e) => {
          if (e.type !== '@xstate.event') return;
          const event = e.event as SessionEvent;
          if (event.type === 'OVERHEARING') words = `${event.partial}…`;
          if (event.type === 'OVERHEARD') words = event.text;
          if (event.type === 'LONG_SPEECH') words = null;
        },
      });
      for (const type of ['playback_paused', 'playback_resumed', 'interrupted'] as const)
        actor.on(type, () => decided.push({ type, atMs: this.#fedMs, on: words }));
      actor.start();
      actor.send({ type: 'TEXT', text: 'tell me about your menu', receivedAt: performance.now() });
      this.#actors.push(actor);
    }
  }

  /** One frame of the caller's line (phone rate), as it arrives. */
  feed(samples: Int16Array): void {
    this.#audio$.next({ samples, sampleRate: corpusRate });
    this.#fedMs += (samples.length * 1000) / corpusRate;
  }

  close(): void {
    for (const actor of this.#actors) actor.stop();
    this.#transcripts.close();
  }
}
