import type { Middleware } from 'koa';
import type {} from '@koa/bodyparser';
import { AppError, UnauthorizedError } from '../../errors/app-errors.js';
import { rateLimitHeaders, type TokenBucket } from '../../ratelimit/token-bucket.js';
import type { StoredAgent } from '../../schemas/agent.js';
import type { Store } from '../../store/store.js';

/**
 * In front of every SDK route: resolves `agent_token` from the JSON body and takes a token from the
 * caller's bucket — per agent for a known token, per client address otherwise (so guessing tokens
 * is rate limited too). Sets the X-RateLimit-* headers on every SDK response (a body that is not
 * JSON included: it is rejected here, after the limiter); 429 adds Retry-After.
 */
export function sdkGate(store: Store, bucket: TokenBucket): Middleware {
  return async (ctx, next) => {
    const token = (ctx.request.body as { agent_token?: unknown } | undefined)?.agent_token;
    const id =
      typeof token === 'string' && token.length > 0 && token.length <= 256
        ? await store.agents.idForToken(token)
        : null;
    // With the token's agent known (usually from the cache), reading the record and taking from the
    // agent's bucket go to Redis together.
    const [agent, agentDecision] = await Promise.all([
      id === null ? null : store.agents.verifyToken(id, token as string),
      bucket.take(id === null ? `ip:${ctx.ip}` : `agent:${id}`),
    ]);
    // A revoked token counts against the caller's address like any unknown one.
    const decision = id !== null && agent === null ? await bucket.take(`ip:${ctx.ip}`) : agentDecision;
    const headers = rateLimitHeaders(decision);
    ctx.set(headers);
    if (!decision.allowed) {
      throw new AppError(
        429,
        'rate_limited',
        `rate limit exceeded; retry in ${decision.retryAfterS} s`,
        undefined,
        headers,
      );
    }
    // A body the JSON parser rejected (app.ts defers it for SDK paths) is answered now, with the headers.
    if (ctx.state['bodyError'] !== undefined) throw ctx.state['bodyError'];
    ctx.state['agent'] = agent;
    await next();
  };
}

/** The agent sdkGate resolved; 401 when the token was unknown. */
export function authenticatedAgent(state: Record<string, unknown>): StoredAgent {
  const agent = state['agent'] as StoredAgent | null | undefined;
  if (agent === null || agent === undefined) throw new UnauthorizedError('agent token invalid');
  return agent;
}
