import { ProviderTimeout } from '../providers/call-deadline.js';
import { ProviderNotConfigured } from '../providers/provider-error.js';
import type { UpstreamFailure } from './webhook.js';

/**
 * How a failed answer is described: the error record type of each webhook failure, the type and
 * message of an LLM failure, and the error the streamed answer throws.
 */

export const webhookErrorTypes: Record<Exclude<UpstreamFailure, 'aborted'>, string> = {
  http_error: 'webhook_http_error',
  timeout: 'webhook_timeout',
  invalid_response: 'webhook_invalid_response',
  network_error: 'webhook_network_error',
};

export class AnswerFailed extends Error {
  override readonly name = 'AnswerFailed';
  constructor(
    message: string,
    readonly errorId: string | null,
    readonly aborted: boolean,
    /** The error record's type (`webhook_timeout`, `llm_not_configured`, …); `aborted` when none was written. */
    readonly reason: string,
  ) {
    super(message);
  }
}

/**
 * What the user is told when no LLM can run here (chat's 503 `llm_not_configured`, a voice turn's
 * `error`): `fixes` is the agent's readiness problem for its LLM, so it names every fix readiness
 * offers (an OpenAI key or server, a GGUF for local-llama).
 */
export function notConfiguredMessage(fixes: string): string {
  return `the language model is not configured here: ${fixes}`;
}

export function describeLlmError(
  err: unknown,
  timeoutMs: number,
): { type: string; message: string; status: number | null } {
  // Said before any call: no key or server, or the GGUF is not installed (the message has the fix).
  if (err instanceof ProviderNotConfigured) return { type: 'llm_not_configured', message: err.message, status: null };
  // Past PARLEY_LLM_TIMEOUT_MS, or a stream stalled past PARLEY_PROVIDER_STALL_MS: the message says which.
  if (err instanceof ProviderTimeout) return { type: 'llm_timeout', message: err.message, status: null };
  const e = err as { status?: unknown; name?: string; message?: string; cause?: { status?: unknown } };
  // The SDK's APIError carries the status; a ProviderError wrapping it carries it as its cause.
  const raw = e.status ?? e.cause?.status;
  const status = typeof raw === 'number' ? raw : null;
  if (e.name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(e.message ?? '')) {
    return { type: 'llm_timeout', message: `language model did not answer within ${timeoutMs} ms`, status };
  }
  const detail = status === null ? (e.message ?? 'request failed') : `HTTP ${status}`;
  return { type: 'llm_error', message: `language model call failed: ${detail}`, status };
}
