import { useEffect, useRef, useState } from 'preact/hooks';
import { ParleyApiError, VoiceCall, type AgentState, type Ended, type TurnLatency } from '../../client/index.js';
import { markInterrupted, setCaption, type Caption } from './captions.js';

export interface TalkProps {
  agent: { id: string; name: string; token: string };
  /** Parley's address, e.g. `location.origin`. */
  baseUrl: string;
}

type Phase = 'idle' | 'starting' | 'live' | 'ended';

const stateWords: Record<AgentState, string> = {
  connecting: 'Connecting…',
  listening: 'Listening',
  thinking: 'Thinking',
  speaking: 'Speaking',
  ended: 'Ended',
};

const endWords: Record<string, string> = {
  client_hangup: 'you ended the call',
  client_closed: 'you ended the call',
  idle_timeout: 'nobody spoke for too long',
  max_duration: 'the call reached its maximum length',
  agent_deleted: 'the agent was deleted',
  error: 'the session failed on the server',
  shutdown: 'the server is shutting down',
  connection_lost: 'the connection was lost',
  refused: 'the server refused the connection',
};

function describeError(err: unknown): string {
  if (err instanceof ParleyApiError) return `${err.message} (${err.code}, HTTP ${err.status})`;
  if (err instanceof Error && err.name === 'NotAllowedError') return 'Microphone access was denied.';
  if (err instanceof Error && err.name === 'NotFoundError') return 'No microphone was found.';
  return err instanceof Error ? err.message : String(err);
}

/**
 * "Talk to the agent": a voice session over the WebSocket transport from the browser microphone,
 * built on the client SDK (`VoiceCall`): live captions of both sides, the agent's state, each
 * turn's latency, typed turns, and the end of the call with its reason.
 */
export function Talk({ agent, baseUrl }: TalkProps) {
  const [phase, setPhase] = useState<Phase>('idle');
  const [state, setState] = useState<AgentState>('connecting');
  const [captions, setCaptions] = useState<Caption[]>([]);
  const [latencies, setLatencies] = useState<TurnLatency[]>([]);
  const [played, setPlayed] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [ended, setEnded] = useState<Ended | null>(null);
  const [text, setText] = useState('');
  const call = useRef<VoiceCall | null>(null);

  useEffect(() => () => call.current?.connection.close(), []);

  const start = async () => {
    setPhase('starting');
    setCaptions([]);
    setLatencies([]);
    setPlayed(0);
    setProblem(null);
    setEnded(null);
    setState('connecting');
    try {
      call.current = await VoiceCall.start({
        baseUrl,
        agentToken: agent.token,
        userId: 'panel',
        onConnection: (c) => {
          c.on('state', setState);
          c.on('transcript', (m) => setCaptions((cs) => setCaption(cs, m.turn, 'user', m.text)));
          c.on('response', (m) => setCaptions((cs) => setCaption(cs, m.turn, 'agent', m.text)));
          c.on('interrupted', (m) => setCaptions((cs) => markInterrupted(cs, m.turn)));
          c.on('latency', (l) => setLatencies((ls) => [...ls, l]));
          c.on('error', (m) => setProblem(`${m.message} (${m.code})`));
          c.on('ended', (e) => {
            setEnded(e);
            setPhase('ended');
          });
        },
      });
      call.current.player.onStats((s) => setPlayed(s.playedSeconds));
      if (call.current.connection.ended === null) setPhase('live');
    } catch (err) {
      setProblem(describeError(err));
      setPhase('idle');
    }
  };

  const end = () => void call.current?.end();

  const send = (event: Event) => {
    event.preventDefault();
    const words = text.trim();
    if (words === '' || call.current === null) return;
    call.current.connection.sendText(words);
    setText('');
  };

  const live = phase === 'live';
  const latencyOf = (turn: number) => latencies.find((l) => l.turn === turn);
  return (
    <section class="talk" aria-labelledby="talk-title">
      <h2 id="talk-title">Talk to {agent.name}</h2>
      <div class="talk-controls">
        {live ? (
          <button type="button" onClick={end}>
            End call
          </button>
        ) : (
          <button type="button" onClick={() => void start()} disabled={phase === 'starting'}>
            {phase === 'starting' ? 'Starting…' : phase === 'ended' ? 'Talk again' : 'Start talking'}
          </button>
        )}
        <p role="status" class="talk-state">
          {phase === 'idle' ? 'Not connected' : `Agent: ${stateWords[state]}`}
          {phase !== 'idle' && (
            <span class="talk-played" data-played-seconds={played.toFixed(2)}>
              {' '}
              · agent audio played: {played.toFixed(1)} s
            </span>
          )}
        </p>
      </div>
      {problem !== null && (
        <p role="alert" class="talk-problem">
          {problem}
        </p>
      )}
      {ended !== null && (
        <p class="talk-ended">
          Call ended: {endWords[ended.reason] ?? ended.reason}
          {ended.message !== null ? ` (${ended.message})` : ''}.
        </p>
      )}
      <h3 id="talk-captions-title">Captions</h3>
      <div class="talk-captions" role="log" aria-live="polite" aria-labelledby="talk-captions-title">
        <ol>
          {captions.length === 0 && <li class="talk-empty">{live ? 'Say something…' : 'No captions yet.'}</li>}
          {captions.map((c) => {
            const latency = c.who === 'agent' ? latencyOf(c.turn) : undefined;
            return (
              <li key={`${c.turn}-${c.who}`} class={`caption caption-${c.who}`} data-who={c.who}>
                <strong>{c.who === 'user' ? 'You' : agent.name}:</strong> {c.text}
                {c.interrupted && <em> (interrupted)</em>}
                {latency !== undefined && (
                  <span class="caption-latency">
                    {' '}
                    — answered in {latency.ms} ms{' '}
                    {latency.from === 'text' ? 'after sending' : 'after you stopped speaking'}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      </div>
      <form class="talk-text" onSubmit={send}>
        <label for={`talk-text-${agent.id}`}>Type a message</label>
        <input
          id={`talk-text-${agent.id}`}
          type="text"
          value={text}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
          disabled={!live}
          maxLength={4000}
        />
        <button type="submit" disabled={!live || text.trim() === ''}>
          Send
        </button>
      </form>
    </section>
  );
}
