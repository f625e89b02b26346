import type { VoiceClient } from './voice-client.js';

/**
 * How a voice turn ended, seen from the client: `answered` (the whole answer captioned and its
 * audio played: `response` with `final: true` and `audio_end` of the turn), `failed` (an `error`
 * with code `turn_failed`), `closed` (the connection went), or `silent` (none of those in time).
 */
export type TurnOutcome = 'answered' | 'failed' | 'closed' | 'silent';

export interface TurnResult {
  outcome: TurnOutcome;
  /** The turn number (from its `transcript`); null when no transcript came. */
  turn: number | null;
  /** A failed turn's `reason` (its error record's type). */
  reason?: string;
  /** Where in `client.events` the outcome's message is (the `turn_failed`, or the `audio_end`). */
  at?: number;
  /** Every message type received since the turn began, in order (for failure messages). */
  seen: string[];
}

/**
 * Waits for the outcome of the first turn whose `transcript` arrives after `client.events[from]`.
 * A typed turn (`text` given) has a transcript of that text, and only a `turn_failed` after it
 * counts (an earlier one is the turn it barged in on); a spoken turn whose STT failed has none, so
 * any `turn_failed` after `from` counts. With `answerOnly`, only an answer ends the wait.
 */
export async function turnOutcome(
  client: VoiceClient,
  from: number,
  timeoutMs: number,
  { text, answerOnly = false }: { text?: string; answerOnly?: boolean } = {},
): Promise<TurnResult> {
  let result: TurnResult | null = null;
  const judge = (): boolean => {
    const since = client.events.slice(from);
    const at = since.findIndex((e) => e.type === 'transcript' && (text === undefined || e['text'] === text));
    const turn = at < 0 ? null : (since[at]!['turn'] as number);
    const seen = since.map((e) => (e.type === 'error' ? `error:${String(e['code'])}` : e.type));
    const ofTurn = (type: string, final?: boolean) =>
      since.some((e) => e.type === type && e['turn'] === turn && (final === undefined || e['final'] === final));
    const failedFrom = answerOnly ? Infinity : text === undefined ? 0 : at < 0 ? Infinity : at;
    const failure = since.findIndex((e, i) => i >= failedFrom && e.type === 'error' && e['code'] === 'turn_failed');
    if (turn !== null && ofTurn('audio_end') && ofTurn('response', true)) result = { outcome: 'answered', turn, seen };
    else if (failure >= 0) {
      const reason = String(since[failure]!['reason']);
      result = { outcome: 'failed', turn, seen, reason, at: from + failure };
    } else if (client.closeCode !== null) result = { outcome: 'closed', turn, seen };
    return result !== null;
  };
  await client.until(judge, timeoutMs, 'turn outcome').catch(() => undefined); // silent: reported as such
  if (result !== null) return result;
  return { outcome: 'silent', turn: null, seen: client.events.slice(from).map((e) => e.type) };
}

/**
 * Whether the agent's fallback line plays after a failed turn: an `audio_end` after the
 * `turn_failed` at `client.events[at]`, within `timeoutMs`.
 */
export async function fallbackPlayed(client: VoiceClient, at: number, timeoutMs: number): Promise<boolean> {
  const played = () => client.events.slice(at + 1).some((e) => e.type === 'audio_end');
  return client.until(played, timeoutMs, 'the fallback line').then(
    () => true,
    () => false, // not played: the caller reports it
  );
}

/** Sends a typed turn and waits for its outcome. */
export async function textTurn(client: VoiceClient, text: string, timeoutMs: number): Promise<TurnResult> {
  const from = client.events.length;
  client.sendJson({ type: 'text', text });
  return turnOutcome(client, from, timeoutMs, { text });
}
