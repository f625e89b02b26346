import type { TurnInput } from '../../machines/session.machine.js';
import type { ReplyEvent } from '../pipeline/reply/reply.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Message, MessageStatus } from '../schemas/conversation.js';
import type { Session } from '../schemas/session.js';
import type { SessionWrites } from './session-writes.js';
import type { TurnRecorder, TurnTimings } from './turn-recorder.js';

/** What a reply speaks for: a user's turn, or a fixed text (the greeting, turn 0). */
export type TurnOrigin = TurnInput | { kind: 'say'; text: string };

/** What the turns of one session share. */
export interface TurnScope {
  /**
   * The session's transport: the rate its audio goes out at (how long a playback lasted), and what
   * of the answer the user heard where the carrier reports it (a phone call's marks).
   */
  transport: { readonly outputSampleRate: number; answerHeardMs?(): number };
  /** Stores each record; called inside a step of `records` (a SessionRecorder's `inQueue`). */
  recorder: TurnRecorder;
  /** The session's write queue: the report's writes run there in the order the turn asked for them. */
  records: SessionWrites;
  agent: StoredAgent;
  session: Session;
  now: () => number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One turn as the records see it, built from the reply graph's events the moment each happens:
 * the user's message, the agent's (with `llm_response`) once the answer is whole and its first
 * audio is out (so its timings are complete), and its playback (`audio_ready`). `cut()` records
 * what was spoken when the machine stopped the reply. What the user is told as the turn goes
 * (captions, audio start and end) is the voice session's (sessions/voice-turn.ts), read from here.
 *
 * Timings (ms, on every agent message): `endpointing_ms` the user stopped speaking → the VAD
 * decided the turn was over; `stt_ms` the transcription; `response_ms` transcript → first
 * sentence of the answer; `first_audio_ms` first sentence → first audio frame sent;
 * `end_to_end_ms` the user stopped speaking (or the text arrived) → first audio frame sent.
 */
export class TurnReport {
  readonly timings: TurnTimings = {};
  private readonly startedAt: number;
  private transcript: string | null = null;
  private transcribedAt: number | null = null;
  private readonly sentences: string[] = [];
  private firstSentenceAt: number | null = null;
  private spokenSentences = 0;
  private firstAudioAt: number | null = null;
  private firstAudioSentence: number | null = null;
  private answer: string | null = null;
  /** The agent's stored message; undefined when it could not be stored. */
  private message: Promise<Message | undefined> | null = null;

  constructor(
    private readonly scope: TurnScope,
    readonly turn: number,
    private readonly origin: TurnOrigin,
    /**
     * When the reply began: a tentative turn's began at the short silence, before its report (made
     * at confirmation), so its transcription ran then, inside `endpointing_ms`.
     */
    private readonly repliedAt = scope.now(),
  ) {
    this.startedAt = scope.now();
  }

  /** Whether this event is the reply's first audio (sentence 0 unless it had no speech). */
  startsAudio(event: ReplyEvent): boolean {
    return event.type === 'sentence_audio' && event.sentence === this.firstAudioSentence;
  }

  /** The answer's sentences so far, as one caption. */
  get answerSoFar(): string {
    return this.sentences.join(' ');
  }

  /** A reply event, which happened `now` (a tentative turn's held events are replayed with their own times). */
  on(event: ReplyEvent, now = this.scope.now()): void {
    switch (event.type) {
      case 'transcribed':
        return this.transcribed(event.text, now);
      case 'sentence':
        this.sentences.push(event.text);
        if (this.firstSentenceAt === null) {
          this.firstSentenceAt = now;
          this.timings['response_ms'] = round(now - Math.max(this.transcribedAt ?? this.startedAt, this.startedAt));
        }
        return;
      case 'answered':
        this.answer = event.text;
        return this.recordAnswerOnceSpoken();
      case 'sentence_audio':
        this.spokenSentences = event.sentence + 1;
        if (this.firstAudioAt !== null) return;
        this.firstAudioAt = now;
        this.firstAudioSentence = event.sentence;
        this.timings['first_audio_ms'] = round(now - (this.firstSentenceAt ?? now));
        this.timings['end_to_end_ms'] = round(now - this.userDoneAt());
        return this.recordAnswerOnceSpoken();
      case 'played':
        if (this.message === null && this.answer !== null) this.recordAnswer('complete', this.answer);
        return this.recordPlayback(false, (event.samples * 1000) / this.scope.transport.outputSampleRate);
      case 'failed':
        // A failure after the answer was stored cut its playback short; before, it is the answer.
        if (this.message === null) this.recordAnswer('failed', '', event.errorId);
        else this.recordPlayback(true, this.heardMs(now));
        return;
    }
  }

  /** The machine stopped the reply before it ended (barge-in, hang-up): record what was said. */
  cut(): void {
    if (this.sentences.length === 0) return;
    if (this.message === null) this.recordAnswer('interrupted', this.spokenText());
    this.recordPlayback(true, this.heardMs(this.scope.now()));
  }

  private transcribed(text: string, now: number): void {
    this.transcript = text;
    this.transcribedAt = now;
    const { origin } = this;
    if (origin.kind === 'audio') {
      this.timings['endpointing_ms'] = round(origin.decidedAt - origin.speechEndedAt);
      this.timings['stt_ms'] = round(now - this.repliedAt);
    }
    if (text === '') return;
    const { records, recorder, session } = this.scope;
    const timings = origin.kind === 'audio' ? { ...this.timings } : null;
    void records.run(session.id, 'user message', () => recorder.user(session, { text, timings }));
  }

  /** When the user was done: speech end (as heard), the text's arrival, or the reply's start. */
  private userDoneAt(): number {
    const { origin } = this;
    if (origin.kind === 'audio') return origin.speechEndedAt;
    if (origin.kind === 'text') return origin.receivedAt;
    return this.startedAt;
  }

  /**
   * How much of a cut answer the user heard: what the carrier reports played (a phone call), else
   * the time since its first frame (the client played it as it came).
   */
  private heardMs(now: number): number {
    if (this.firstAudioAt === null) return 0;
    const heard = this.scope.transport.answerHeardMs?.();
    return heard ?? now - this.firstAudioAt;
  }

  private spokenText(): string {
    return this.sentences.slice(0, this.spokenSentences).join(' ');
  }

  private recordAnswerOnceSpoken(): void {
    if (this.message === null && this.answer !== null && this.firstAudioAt !== null)
      this.recordAnswer('complete', this.answer);
  }

  private recordAnswer(status: MessageStatus, text: string, errorId: string | null = null): void {
    const { recorder, agent, session } = this.scope;
    const source = this.origin.kind === 'say' ? 'greeting' : agent.mode === 'passthrough' ? 'webhook' : 'llm';
    const turn = {
      channel: 'voice' as const,
      turn: this.turn,
      transcript: this.transcript,
      text,
      status,
      source,
      errorId,
      timings: { ...this.timings },
    } as const;
    this.message = this.scope.records.run(session.id, 'agent message', () => recorder.answered(agent, session, turn));
  }

  private recordPlayback(interrupted: boolean, durationMs: number): void {
    const message = this.message;
    if (message === null) return;
    const { recorder, agent, session } = this.scope;
    const played = {
      turn: this.turn,
      interrupted,
      spokenText: interrupted ? this.spokenText() : (this.answer ?? this.spokenText()),
      durationMs,
      timings: { ...this.timings },
    };
    // The playback needs its answer's id: this step waits for the answer's (queued before it), and
    // the writes asked for after it wait for this one.
    void this.scope.records.run(session.id, 'playback', async () => {
      const stored = await message;
      if (stored !== undefined) await recorder.played(agent, session, stored.id, played);
    });
  }
}
