import type { StoredAgent } from '../schemas/agent.js';
import type { WebhookObserver } from '../metrics/operator-metrics.js';
import { withAgentTarget } from '../actions/call-action.js';
import { webhookErrorTypes } from './answer-failure.js';
import type { Answer, Turn } from './answer.js';
import type { FailureRecords } from './failure-records.js';
import { WebhookFailed, callWebhook } from './webhook.js';

export interface WebhookAnswerOptions {
  /** Where a failed call's error record is written. */
  failures: Pick<FailureRecords, 'record'>;
  /** Counts webhook outcomes and durations (operator metrics). */
  metrics?: WebhookObserver | undefined;
  /** A streamed answer's longest silence once it has started (PARLEY_PROVIDER_STALL_MS). */
  stallMs: number;
}

/**
 * The webhook's answer as it arrives (its text pieces, the whole of a JSON answer at once), then
 * the Answer: the whole text, or the failure, recorded. A failure after some text (a stream cut
 * or stalled midway) fails the answer too.
 */
export async function* webhookAnswer(
  agent: StoredAgent,
  turn: Turn,
  signal: AbortSignal | undefined,
  o: WebhookAnswerOptions,
): AsyncGenerator<string, Answer> {
  const metrics = o.metrics;
  if (agent.webhook_url === null) {
    metrics?.webhook('not_configured', 0);
    const reason = 'webhook_not_configured';
    const errorId = await o.failures.record(agent, turn.sessionId, {
      type: reason,
      message: 'agent is in passthrough mode and has no webhook_url',
      status: null,
      latencyMs: 0,
    });
    return { ok: false, aborted: false, errorId, message: 'agent has no webhook_url', latencyMs: 0, reason };
  }
  const start = performance.now();
  let counted = false;
  let text = '';
  try {
    for await (const part of callWebhook(
      { url: agent.webhook_url, apiKey: agent.webhook_api_key, timeoutMs: agent.webhook_timeout_ms },
      { sessionId: turn.sessionId, transcript: turn.transcript, userId: turn.userId, context: turn.context },
      { signal, stallMs: o.stallMs },
    )) {
      if (part.type === 'text') {
        text += part.text;
        yield part.text;
        continue;
      }
      counted = true;
      metrics?.webhook('ok', part.latencyMs);
      // A malformed action is recorded and ignored; the answer itself still counts.
      if (part.actionError !== null)
        await o.failures.record(agent, turn.sessionId, {
          type: 'webhook_invalid_action',
          message: part.actionError,
          status: part.status,
          latencyMs: part.latencyMs,
        });
      if (part.action !== null) turn.onAction?.(withAgentTarget(part.action, agent.transfer_to));
      return { ok: true, text, source: 'webhook', latencyMs: part.latencyMs };
    }
    throw new Error('the webhook call ended without its end');
  } catch (err) {
    if (!(err instanceof WebhookFailed)) throw err;
    counted = true;
    metrics?.webhook(err.failure, err.latencyMs);
    const { message, latencyMs, status } = err;
    if (err.failure === 'aborted')
      return { ok: false, aborted: true, errorId: null, message, latencyMs, reason: 'aborted' };
    const reason = webhookErrorTypes[err.failure];
    const errorId = await o.failures.record(agent, turn.sessionId, { type: reason, message, status, latencyMs });
    return { ok: false, aborted: false, errorId, message, latencyMs, reason };
  } finally {
    // The reader left midway (barge-in tore the turn down): the call was dropped unfinished.
    if (!counted) metrics?.webhook('aborted', Math.round((performance.now() - start) * 100) / 100);
  }
}
