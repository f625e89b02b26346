import type { TurnInput } from '../../machines/session.machine.js';
import type { ReplyEvent } from '../pipeline/reply/reply.js';
import type { StoredAgent } from '../records/agent.js';
import type { Message, MessageStatus } from '../records/conversation.js';
import type { Session } from '../records/session.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { TurnRecorder, TurnTimings } from '../turns/turn-recorder.js';
import type { RecordQueue } from './record-queue.js';

/** What a reply speaks for: a user's turn, or a fixed text (the greeting, turn 0). */
export type TurnOrigin = TurnInput | { kind: 'say'; text: string };

/** What the turns of one session share. */
export interface TurnScope {
  transport: Pick<MediaTransport, 'send' | 'outputSampleRate'>;
  recorder: TurnRecorder;
  records: RecordQueue;
  agent: StoredAgent;
  session: Session;
  now: () => number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One turn as the client and the records see it, built from the reply graph's events the moment
 * each happens: `transcript`, `response` captions sentence by sentence, `audio_start` just before
 * the first frame, `audio_end` once played; the user's message, the agent's (with `llm_response`)
 * once the answer is whole and its first audio is out (so its timings are complete), and its
 * playback (`audio_ready`). `cut()` records what was spoken when the machine stopped the reply.
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
  private message: Promise<Message | null> | null = null;
  private failure: string | null = null;

  constructor(
    private readonly scope: TurnScope,
    readonly turn: number,
    private readonly origin: TurnOrigin,
  ) {
    this.startedAt = scope.now();
  }

  /** Whether this event is the reply's first audio (sentence 0 unless it had no speech). */
  startsAudio(event: ReplyEvent): boolean {
    return event.type === 'sentence_audio' && event.sentence === this.firstAudioSentence;
  }

  /** Why the reply failed, once it has; null while it has not. */
  get failed(): string | null {
    return this.failure;
  }

  on(event: ReplyEvent): void {
    const now = this.scope.now();
    const { transport } = this.scope;
    switch (event.type) {
      case 'transcribed':
        return this.transcribed(event.text, now);
      case 'sentence':
        this.sentences.push(event.text);
        if (this.firstSentenceAt === null) {
          this.firstSentenceAt = now;
          this.timings['response_ms'] = round(now - (this.transcribedAt ?? this.startedAt));
        }
        transport.send({ type: 'response', turn: this.turn, text: this.sentences.join(' '), final: false });
        return;
      case 'answered':
        this.answer = event.text;
        transport.send({ type: 'response', turn: this.turn, text: event.text, final: true });
        return this.recordAnswerOnceSpoken();
      case 'sentence_audio':
        this.spokenSentences = event.sentence + 1;
        if (this.firstAudioAt !== null) return;
        this.firstAudioAt = now;
        this.firstAudioSentence = event.sentence;
        this.timings['first_audio_ms'] = round(now - (this.firstSentenceAt ?? now));
        this.timings['end_to_end_ms'] = round(now - this.userDoneAt());
        transport.send({ type: 'audio_start', turn: this.turn, sample_rate: transport.outputSampleRate });
        return this.recordAnswerOnceSpoken();
      case 'played':
        if (event.samples > 0) transport.send({ type: 'audio_end', turn: this.turn });
        if (this.message === null && this.answer !== null) this.recordAnswer('complete', this.answer);
        return this.recordPlayback(false, (event.samples * 1000) / transport.outputSampleRate);
      case 'failed':
        this.failure = event.message;
        transport.send({ type: 'error', code: 'turn_failed', message: 'no answer for this turn' });
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
      this.timings['stt_ms'] = round(now - this.startedAt);
    }
    if (text === '') return;
    this.scope.transport.send({ type: 'transcript', turn: this.turn, text });
    const timings = origin.kind === 'audio' ? { ...this.timings } : null;
    void this.scope.records.run('user message', () => this.scope.recorder.user(this.scope.session, { text, timings }));
  }

  /** When the user was done: speech end (as heard), the text's arrival, or the reply's start. */
  private userDoneAt(): number {
    const { origin } = this;
    if (origin.kind === 'audio') return origin.speechEndedAt;
    if (origin.kind === 'text') return origin.receivedAt;
    return this.startedAt;
  }

  private heardMs(now: number): number {
    return this.firstAudioAt === null ? 0 : now - this.firstAudioAt;
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
    this.message = this.scope.records.run('agent message', () => recorder.answered(agent, session, turn));
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
    void this.scope.records.run('playback', async () => {
      const stored = await message;
      if (stored !== null) await recorder.played(agent, session, stored.id, played);
    });
  }
}
