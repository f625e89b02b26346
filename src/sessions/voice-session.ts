import { BehaviorSubject, finalize, tap, type Observable } from 'rxjs';
import { createActor, fromEventObservable, fromPromise } from 'xstate';
import {
  sessionMachine,
  type ActOutput,
  type CallAction,
  type EndReason,
  type ReplyInput,
  type SessionActor,
  type SessionEvent,
  type SpeakInput,
} from '../../machines/session.machine.js';
import { CallControl } from './call-control.js';
import { performCallAction } from './perform-action.js';
import { sessionBacklogMs, type IntakeStats, type OverrunReason } from '../pipeline/intake/limits.js';
import { defaultPlayoutTiming, playout } from '../pipeline/reply/playout.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Session } from '../schemas/session.js';
import type { MediaTransport } from './transport/media-transport.js';
import { streamingTranscripts } from './segment-transcripts.js';
import { HeardSoFar } from './heard-so-far.js';
import { sessionInput } from './session-input.js';
import type { VoiceSessionDeps } from './voice-session-deps.js';
import type { PipelineSettings } from '../agents/pipeline-settings.js';
import { voiceStages } from './voice-stages.js';
import { checkActors, statementEnds } from './voice-checks.js';
import { turnEvents, type TurnGraph } from './voice-turn.js';
import type { RecordingWriter } from '../call-recordings/recording-writer.js';
import { openRecording } from '../call-recordings/recordings.js';
import { sessionMachineInput } from './machine-input.js';
import { inSessionScope, withinSessionScope, type SessionScope } from './session-scope.js';

export type { VoiceSessionDeps } from './voice-session-deps.js';

const now = () => performance.now();

/**
 * One live voice conversation: the session machine (machines/session.machine.ts) invoking the
 * RxJS graphs of src/pipeline: the microphone graph for the whole session, one reply graph per
 * turn, the greeting. This class only wires them to the transport and the records, and ends the
 * session once, whatever ended it: a reason from the machine, a bug, or a preset it cannot read.
 */
export class VoiceSession {
  readonly done: Promise<EndReason>;
  private readonly recorder: VoiceSessionDeps['recorder'];
  private readonly intake: IntakeStats = { droppedFrames: 0, droppedMs: 0 };
  private actor: SessionActor | null = null;
  private resolveDone!: (reason: EndReason) => void;
  private ending: Promise<void> | null = null;
  private recording: RecordingWriter | null = null;
  /** Errors that escape this session's graphs are its own (see session-scope.ts). */
  private readonly scope: SessionScope;

  private constructor(
    private readonly deps: VoiceSessionDeps,
    private readonly agent: StoredAgent,
    readonly session: Session,
    private readonly transport: MediaTransport,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.scope = { sessionId: session.id, escaped: (err, how) => this.escaped(err, how) };
    this.recorder = deps.recorder;
  }

  /**
   * Starts a session on a connected transport. The agent's preset is read once, here; when it
   * cannot be read the session ends at once with reason `error` and a `preset_unavailable` record.
   */
  static async start(
    deps: VoiceSessionDeps,
    agent: StoredAgent,
    session: Session,
    transport: MediaTransport,
  ): Promise<VoiceSession> {
    const voice = new VoiceSession(deps, agent, session, transport);
    let settings: PipelineSettings;
    try {
      settings = await deps.settings.of(agent);
    } catch (err) {
      void voice.fail('preset_unavailable', `the agent's preset ${agent.preset_id ?? ''} could not be read`, err);
      return voice;
    }
    voice.run(settings);
    return voice;
  }

  /** The caller pressed keys (a phone call): a `dtmf` event, queued directly (it announces no record). */
  private keypad(digits: string): void {
    const callSid = this.session.metadata['call_sid'] ?? null;
    this.deps.outbox.emit(this.agent, 'dtmf', this.session.id, { digits, call_sid: callSid });
  }

  /** Ends the session cleanly (server shutdown). */
  shutdown(): void {
    if (this.actor?.getSnapshot().status === 'active') this.actor.send({ type: 'SHUTDOWN' });
  }

  private run(settings: PipelineSettings): void {
    const { deps, agent, session, transport } = this;
    const timing = { ...defaultPlayoutTiming, ...deps.playout };
    const control = new CallControl();
    /** The machine's decisions the graphs follow: the confirmed turn, and whether playback is paused. */
    const confirmations = new BehaviorSubject(0);
    const paused$ = new BehaviorSubject(false);
    const { expected_phrases: phrases, expected_phrases_only: phrasesOnly } = agent;
    const heard = { phrases, phrasesOnly, capturedRate: transport.inputSampleRate };
    const transcripts = streamingTranscripts(deps.speech, settings.stt, heard, {
      logger: deps.logger,
      sessionId: session.id,
    });
    const recording = (this.recording = openRecording(deps, agent, session, {
      callerRate: transport.inputSampleRate,
      agentRate: transport.outputSampleRate,
      now,
    }));
    const graph: TurnGraph = {
      control,
      transport,
      // the turn's writes queue on the session's write queue, each step storing through `inQueue`
      recorder: this.recorder.inQueue,
      records: this.recorder.writes,
      agent,
      session,
      now,
      stages: voiceStages({
        deps,
        agent,
        session,
        settings,
        inputRate: transport.inputSampleRate,
        outputRate: transport.outputSampleRate,
        control,
        transcripts,
      }),
      speak: playout((frame) => transport.sendAudio(frame), {
        sampleRate: transport.outputSampleRate,
        ...timing,
        paused$,
        ...(transport.dropQueuedAudio === undefined ? {} : { dropQueued: () => transport.dropQueuedAudio?.() }),
        tap: recording?.agentTap,
      }),
      confirmations,
      statementEnd: statementEnds(deps, agent, session.id),
    };
    const smart = agent.endpointing_mode === 'smart';
    const silence = new HeardSoFar(sessionBacklogMs(deps.intake));
    const machine = sessionMachine.provide({
      actors: {
        listen: fromEventObservable<SessionEvent, void>(() =>
          this.logged(
            sessionInput(transport, {
              vad: deps.vad,
              vadOptions: {
                threshold: agent.vad_threshold,
                // smart endpointing: the VAD cuts at a very short silence (transcription starts), the
                // reply answers ahead at preemptive_silence_ms, the machine decides the turn
                minSilenceMs: smart ? agent.transcription_silence_ms : agent.min_silence_ms,
                prefixPaddingMs: agent.prefix_padding_ms,
                maxUtteranceMs: agent.max_utterance_ms,
              },
              limits: deps.intake,
              backlog: deps.backlog,
              stats: this.intake,
              now,
              onOverrun: (reason) => this.overrun(reason),
              transcripts,
              onDigits: (digits) => this.keypad(digits),
              onFrame: recording === null ? undefined : (frame) => recording.callerFrame(frame),
              onScored: (progress) => silence.scored(progress),
            }).pipe(finalize(() => transcripts?.close())),
          ),
        ),
        silenceHeard: fromEventObservable<SessionEvent, void>(() => silence.silenceHeard(now())),
        speak: fromEventObservable<SessionEvent, SpeakInput>(({ input }) =>
          this.logged(turnEvents(graph, 0, { kind: 'say', text: input.text })),
        ),
        reply: fromEventObservable<SessionEvent, ReplyInput>(({ input }) =>
          this.logged(turnEvents(graph, input.turn, input.input, input.confirmed)),
        ),
        ...checkActors({ deps, stages: graph.stages, transcripts, transport, logged: (e) => this.logged(e) }),
        act: fromPromise<ActOutput, CallAction>(({ input }) =>
          performCallAction(input, { agent, sessionId: session.id, transport, store: deps.store, logger: deps.logger }),
        ),
      },
    });
    const actor = createActor(machine, { input: sessionMachineInput(agent) });
    this.actor = actor;
    actor.on('ended', ({ reason, error }) => {
      if (reason === 'error') void this.fail('session_failed', `voice session failed: ${error ?? 'unknown error'}`);
      else void this.finish(reason, null);
    });
    actor.on('turn_started', ({ turn }) => {
      paused$.next(false);
      confirmations.next(turn);
    });
    actor.on('playback_paused', ({ turn }) => {
      paused$.next(true);
      transport.send({ type: 'playback_paused', turn });
    });
    actor.on('playback_resumed', ({ turn }) => {
      transport.send({ type: 'playback_resumed', turn });
      paused$.next(false);
    });
    actor.on('interrupted', ({ turn }) => transport.send({ type: 'interrupted', turn }));
    // An exception inside the machine itself ends this session alone, with an error record.
    actor.subscribe({
      error: (err) => void this.fail('session_failed', `voice session failed: ${describe(err)}`, err),
    });
    transport.send({ type: 'ready', session_id: session.id, sample_rate: transport.outputSampleRate });
    inSessionScope(this.scope, () => actor.start());
  }

  /**
   * An actor's events, delivered in the session's scope (so what they start is the session's); the
   * machine ends the session on a graph's error and keeps its message, the stack goes to the log here.
   */
  private logged(events: Observable<SessionEvent>): Observable<SessionEvent> {
    return events.pipe(
      tap({
        error: (err: unknown) => this.deps.logger.error({ err, session_id: this.session.id }, 'voice graph failed'),
      }),
      withinSessionScope(this.scope),
    );
  }

  /**
   * An error escaped this session's graphs (no error path caught it): a bug, so the session ends
   * with `session_failed`, alone. Once the session is ending, it is what was left of a torn-down
   * turn (an abort, a hang-up): logged and dropped.
   */
  private escaped(err: unknown, how: string): void {
    if (this.ending !== null) {
      this.deps.logger.warn({ err, session_id: this.session.id, how }, 'error after the session ended; dropped');
      return;
    }
    void this.fail('session_failed', `voice session failed: ${how}: ${describe(err)}`, err);
  }

  private overrun(reason: OverrunReason): void {
    this.deps.logger.warn({ session_id: this.session.id, reason }, 'dropping inbound audio');
    this.transport.send({
      type: 'error',
      code: 'audio_overrun',
      message:
        reason === 'faster_than_real_time'
          ? 'audio is arriving faster than real time; the excess is dropped'
          : 'the server is behind on audio; frames are being dropped',
    });
  }

  /** Records the failure (an error record), then ends the session with reason `error`. */
  private async fail(type: string, message: string, err?: unknown): Promise<void> {
    if (this.ending !== null) return;
    const { logger, store } = this.deps;
    logger.error({ err, session_id: this.session.id, type }, message);
    await store.errors
      .record({ type, message, agent_id: this.agent.id, session_id: this.session.id })
      .catch((recordErr: unknown) => logger.error({ err: recordErr }, 'could not write error record'));
    await this.finish('error', message);
  }

  private finish(reason: EndReason, error: string | null): Promise<void> {
    this.ending ??= this.end(reason, error);
    return this.ending;
  }

  private async end(reason: EndReason, error: string | null): Promise<void> {
    const { logger } = this.deps;
    // Out of the machine's own transition first; then stop every graph it still runs (a turn in
    // flight records what it had said).
    await Promise.resolve();
    this.actor?.stop();
    // after the graphs stopped: the playout has cut what was not heard
    const recorded = this.recording
      ?.close()
      .catch((err: unknown) => logger.error({ err, session_id: this.session.id }, 'could not finish the recording'));
    if (this.intake.droppedFrames > 0)
      logger.warn({ session_id: this.session.id, ...this.intake }, 'inbound audio dropped during the session');
    try {
      // Records first: the end is queued behind every turn's writes, and once the client sees
      // `ended`, the session record is final.
      await this.recorder.ended(this.agent, this.session.id, reason, { error, session_type: 'voice' });
    } catch (err) {
      logger.error({ err, session_id: this.session.id }, 'could not record the end of a voice session');
    } finally {
      // once the client sees `ended`, the recording is complete too
      await recorded;
      this.transport.send({ type: 'ended', reason });
      this.transport.close(reason === 'error' ? 1011 : 1000, reason);
      this.resolveDone(reason);
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
