import type { Logger } from 'pino';
import { Subscription } from 'rxjs';
import { createActor, fromCallback } from 'xstate';
import {
  sessionMachine,
  type EndReason,
  type ReplyInput,
  type SessionActor,
  type SessionEvent,
  type SpeakInput,
  type TurnInput,
} from '../../machines/session.machine.js';
import type { EventOutbox } from '../events/outbox.js';
import { resampleTo } from '../pipeline/resample.js';
import { detectSpeech } from '../pipeline/vad/detect-speech.js';
import type { SileroVad } from '../pipeline/vad/silero-vad.js';
import { builtInPreset } from '../providers/catalog.js';
import { ProviderError } from '../providers/provider-error.js';
import type { SpeechProviders } from '../providers/speech-providers.js';
import type { StoredAgent } from '../records/agent.js';
import type { StoredPreset } from '../records/preset.js';
import type { Session } from '../records/session.js';
import { Playout } from '../realtime/playout.js';
import { resampleSpeech } from '../realtime/speech-resampler.js';
import type { MediaTransport } from '../realtime/transport.js';
import { AnswerFailed, type Responder } from '../respond/responder.js';
import { sentencesOf } from '../respond/sentences.js';
import type { RagService } from '../rag/rag-service.js';
import type { Store } from '../store/store.js';

export interface VoiceSessionDeps {
  store: Store;
  outbox: EventOutbox;
  responder: Responder;
  speech: SpeechProviders;
  vad: SileroVad;
  /** Retrieval for agents with RAG on (the same as chat's). */
  rag: Pick<RagService, 'retrieveContext'>;
  logger: Logger;
}

type Settings = Pick<StoredPreset, 'stt' | 'tts'>;

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One live voice conversation: the transport's audio through resampling and VAD into the session
 * machine, whose `reply` and `speak` actors run STT → answer → TTS → paced playout. Everything the
 * session owns is torn down when the machine ends, whatever ended it.
 */
export class VoiceSession {
  readonly done: Promise<EndReason>;
  private readonly actor: SessionActor;
  private readonly subscriptions = new Subscription();
  private readonly playout: Playout;
  private resolveDone!: (reason: EndReason) => void;
  private finished = false;

  private constructor(
    private readonly deps: VoiceSessionDeps,
    private readonly agent: StoredAgent,
    readonly session: Session,
    private readonly transport: MediaTransport,
    private readonly settings: Settings,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.playout = new Playout(transport);
    const machine = sessionMachine.provide({
      actors: {
        speak: fromCallback<SessionEvent, SpeakInput>(({ input, sendBack }) => {
          const abort = new AbortController();
          void this.speakGreeting(input.text, abort.signal).then(() => sendBack({ type: 'SPEAK_DONE' }));
          return () => abort.abort();
        }),
        reply: fromCallback<SessionEvent, ReplyInput>(({ input, sendBack }) => {
          const abort = new AbortController();
          void this.runTurn(input, sendBack, abort.signal);
          return () => abort.abort();
        }),
      },
    });
    this.actor = createActor(machine, {
      input: {
        greeting: agent.greeting,
        interruptionsEnabled: agent.interruptions_enabled,
        interruptionMinSpeechMs: agent.interruption_min_speech_ms,
        idleTimeoutMs: agent.idle_timeout_ms,
        maxDurationMs: agent.max_duration_ms,
      },
    });
  }

  /** Starts a session on a connected transport. */
  static async start(
    deps: VoiceSessionDeps,
    agent: StoredAgent,
    session: Session,
    transport: MediaTransport,
  ): Promise<VoiceSession> {
    const preset =
      agent.preset_id === null ? null : await deps.store.presets.getStored(agent.preset_id).catch(() => null);
    const settings: Settings = {
      stt: preset?.stt ?? { ...builtInPreset.stt },
      tts: preset?.tts ?? { ...builtInPreset.tts },
    };
    const voice = new VoiceSession(deps, agent, session, transport, settings);
    voice.run();
    return voice;
  }

  /** Ends the session cleanly (server shutdown). */
  shutdown(): void {
    this.actor.send({ type: 'SHUTDOWN' });
  }

  private run(): void {
    const { actor, transport, agent } = this;
    actor.on('ended', ({ reason, error }) => void this.finish(reason, error));
    actor.on('interrupted', ({ turn }) => {
      this.playout.reset();
      transport.send({ type: 'interrupted', turn });
      void this.deps.store.agents.bump(agent.id, { interrupted_turns: 1 }).catch(() => {});
    });
    // An exception inside the machine ends this session alone, with an error record.
    actor.subscribe({ error: (err) => void this.fail(err) });
    actor.start();

    this.subscriptions.add(
      transport.audio$
        .pipe(
          resampleTo(16_000),
          detectSpeech(this.deps.vad, {
            threshold: agent.vad_threshold,
            minSilenceMs: agent.min_silence_ms,
            prefixPaddingMs: agent.prefix_padding_ms,
            maxUtteranceMs: agent.max_utterance_ms,
          }),
        )
        .subscribe({
          next: (event) => {
            if (event.type === 'speech_start') actor.send({ type: 'SPEECH_START' });
            else if (event.type === 'speech_end')
              actor.send({ type: 'SPEECH_END', audio: event.audio, durationMs: event.durationMs });
          },
          error: (err: unknown) => void this.fail(err),
        }),
    );
    this.subscriptions.add(
      transport.messages$.subscribe((message) => {
        if (message.type === 'text') actor.send({ type: 'TEXT', text: message.text });
        else actor.send({ type: 'HANGUP' });
      }),
    );
    this.subscriptions.add(transport.closed$.subscribe(() => actor.send({ type: 'HANGUP' })));
    transport.send({ type: 'ready', session_id: this.session.id, sample_rate: transport.outputSampleRate });
  }

  private async speakGreeting(text: string, signal: AbortSignal): Promise<void> {
    try {
      await this.speak(text, signal, () =>
        this.transport.send({ type: 'audio_start', turn: 0, sample_rate: this.transport.outputSampleRate }),
      );
      if (await this.playout.drain(signal)) this.transport.send({ type: 'audio_end', turn: 0 });
      await this.deps.store.conversations.appendMessage(this.session.conversation_id, {
        role: 'agent',
        text,
        status: signal.aborted ? 'interrupted' : 'complete',
      });
    } catch (err) {
      this.deps.logger.warn({ err, session_id: this.session.id }, 'greeting failed');
    }
  }

  /** One user turn; every outcome ends in exactly one REPLY_DONE or REPLY_FAILED unless aborted. */
  private async runTurn(
    { turn, input }: ReplyInput,
    sendBack: (e: SessionEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const { store, responder, outbox, logger } = this.deps;
    const { session, agent, transport } = this;
    const speechEndAt = performance.now();
    const timings: Record<string, number> = {};
    let spoken = '';
    let userMessage: Promise<unknown> = Promise.resolve();
    let samplesSpoken = 0;
    let answered = false;
    // Set before telling the machine: its reaction stops this actor (aborting `signal`) at once.
    let settled = false;
    try {
      const transcript = await this.transcribe(input, signal);
      if (signal.aborted) return;
      if (input.kind === 'audio') timings['stt_ms'] = round(performance.now() - speechEndAt);
      if (transcript === '') {
        sendBack({ type: 'REPLY_DONE' });
        return;
      }
      sendBack({ type: 'TRANSCRIBED', text: transcript });
      transport.send({ type: 'transcript', turn, text: transcript });
      void store.sessions.touch(session.id).catch(() => {});
      // Stored while the answer is prepared, not before it: Redis stays off the first-audio path.
      userMessage = store.conversations.appendMessage(session.conversation_id, {
        role: 'user',
        text: transcript,
        timings: input.kind === 'audio' ? { stt_ms: timings['stt_ms']! } : null,
      });
      userMessage.catch(() => {}); // awaited before the answer is stored; this only marks it handled

      const answerStart = performance.now();
      let firstAudioAt: number | null = null;
      const { context } = await this.deps.rag.retrieveContext(agent, transcript, session.id);
      if (signal.aborted) return;
      const deltas = responder.stream(
        agent,
        {
          sessionId: session.id,
          conversationId: session.conversation_id,
          transcript,
          userId: session.user_id,
          context,
        },
        signal,
      );
      for await (const sentence of sentencesOf(deltas)) {
        if (timings['response_ms'] === undefined) timings['response_ms'] = round(performance.now() - answerStart);
        answered = true;
        spoken += (spoken === '' ? '' : ' ') + sentence;
        samplesSpoken += await this.speak(sentence, signal, () => {
          if (firstAudioAt !== null) return;
          firstAudioAt = performance.now();
          transport.send({ type: 'audio_start', turn, sample_rate: transport.outputSampleRate });
          timings['first_audio_ms'] = round(firstAudioAt - answerStart - timings['response_ms']!);
          timings['end_to_end_ms'] = round(firstAudioAt - speechEndAt);
          sendBack({ type: 'AUDIO_STARTED' });
        });
        if (signal.aborted) break;
      }
      if (signal.aborted) return;
      if (!(await this.playout.drain(signal))) return;
      if (firstAudioAt !== null) transport.send({ type: 'audio_end', turn });
      transport.send({ type: 'response', turn, text: spoken });
      await userMessage;
      const message = await store.conversations.appendMessage(session.conversation_id, {
        role: 'agent',
        text: spoken,
        timings,
      });
      await Promise.all([
        store.sessions.recordTurn(session.id),
        store.agents.bump(agent.id, {
          turns: 1,
          response_ms_sum: Math.round(timings['end_to_end_ms'] ?? 0),
          response_ms_count: 1,
        }),
      ]);
      outbox.emit(agent, 'llm_response', session.id, {
        transcript,
        response: spoken,
        source: agent.mode === 'passthrough' ? 'webhook' : 'llm',
        message_id: message.id,
        channel: 'voice',
        timings,
      });
      outbox.emit(agent, 'audio_ready', session.id, {
        message_id: message.id,
        turn,
        duration_ms: Math.round((samplesSpoken * 1000) / transport.outputSampleRate),
        first_audio_ms: timings['first_audio_ms'] ?? null,
      });
      settled = true;
      sendBack({ type: 'REPLY_DONE' });
    } catch (err) {
      if (signal.aborted || (err instanceof AnswerFailed && err.aborted)) return;
      if (err instanceof AnswerFailed || err instanceof ProviderError) {
        // SPEC §7: an upstream failure means silence for this turn; the agent keeps listening.
        if (err instanceof ProviderError) await this.recordProviderError('tts_error', err);
        transport.send({ type: 'error', code: 'turn_failed', message: 'no answer for this turn' });
        settled = true;
        sendBack({ type: 'REPLY_FAILED', error: err.message });
        return;
      }
      // Anything else is a bug: this session ends, alone, with an error record.
      await this.fail(err);
    } finally {
      if (signal.aborted && answered && !settled) {
        await userMessage.catch(() => {});
        await store.conversations
          .appendMessage(session.conversation_id, { role: 'agent', text: spoken, status: 'interrupted', timings })
          .catch((e: unknown) => logger.warn({ err: e }, 'could not store interrupted answer'));
      }
    }
  }

  private async transcribe(input: TurnInput, signal: AbortSignal): Promise<string> {
    if (input.kind === 'text') return input.text;
    const stt = this.settings.stt;
    try {
      const text = await this.deps.speech
        .stt(stt)
        .transcribe({ audio: input.audio, sampleRate: 16_000, model: stt.model, language: stt.language, signal });
      return text.trim();
    } catch (err) {
      if (signal.aborted) return '';
      if (!(err instanceof ProviderError)) throw err;
      const errorId = await this.recordProviderError('stt_error', err);
      throw new AnswerFailed('transcription failed', errorId, false);
    }
  }

  /**
   * Synthesizes `text` and plays it out; `onFirstAudio` runs before its first frame is sent.
   * Resolves with the number of samples sent.
   */
  private async speak(text: string, signal: AbortSignal, onFirstAudio: () => void): Promise<number> {
    const tts = this.settings.tts;
    let started = false;
    let sent = 0;
    const chunks = this.deps.speech
      .tts(tts)
      .synthesize({ text, model: tts.model, voice: tts.voice, speed: tts.speed, signal });
    for await (const samples of resampleSpeech(chunks, this.transport.outputSampleRate)) {
      if (signal.aborted) return sent;
      if (!started) {
        started = true;
        onFirstAudio();
      }
      if (!(await this.playout.write(samples, signal))) return sent;
      sent += samples.length;
    }
    return sent;
  }

  private async recordProviderError(type: 'stt_error' | 'tts_error', err: ProviderError): Promise<string | null> {
    const record = await this.deps.store.errors
      .record({
        type,
        message: err.message,
        agent_id: this.agent.id,
        session_id: this.session.id,
        details: { provider: err.provider },
      })
      .catch(() => null);
    return record?.id ?? null;
  }

  private async fail(err: unknown): Promise<void> {
    if (this.finished) return;
    this.deps.logger.error({ err, session_id: this.session.id }, 'voice session failed');
    await this.deps.store.errors
      .record({
        type: 'session_failed',
        message: `voice session failed: ${err instanceof Error ? err.message : String(err)}`,
        agent_id: this.agent.id,
        session_id: this.session.id,
      })
      .catch(() => {});
    if (this.actor.getSnapshot().status === 'active')
      this.actor.send({ type: 'FAIL', error: err instanceof Error ? err.message : String(err) });
    else await this.finish('error', err instanceof Error ? err.message : String(err));
  }

  private async finish(reason: EndReason, error: string | null): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.subscriptions.unsubscribe();
    const { store, outbox, logger } = this.deps;
    try {
      // Records first: once the client sees `ended`, the session record is final.
      const ended = await store.sessions.end(this.session.id, reason);
      if (ended !== null) {
        outbox.emit(this.agent, 'session_end', ended.id, {
          reason,
          error,
          duration_ms: ended.duration_ms,
          turns: ended.turns,
          session_type: 'voice',
        });
      }
    } catch (err) {
      logger.error({ err, session_id: this.session.id }, 'could not record the end of a voice session');
    } finally {
      this.transport.send({ type: 'ended', reason });
      this.transport.close(reason === 'error' ? 1011 : 1000, reason);
      this.actor.stop();
      this.resolveDone(reason);
    }
  }
}
