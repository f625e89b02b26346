import { z } from 'zod';
import { transferTargetSchema } from '../schemas/transfer-target.js';

/**
 * Call control: what an answer may ask of the session beside its words. `end_call` hangs up once
 * the closing words have played (end reason `agent_hangup`); `transfer` hands the caller over
 * (LiveKit SIP transfer, or a `transfer` message to a WebSocket client) and ends the session
 * (`transferred`). `to` is a SIP URI, a `tel:` URI or a phone number; null means "the client
 * decides" (WebSocket) and fails on LiveKit.
 */
export type CallAction = { type: 'end_call' } | { type: 'transfer'; to: string | null };

/** The end reason an action ends its session with. */
export function endReasonOf(action: CallAction): 'agent_hangup' | 'transferred' {
  return action.type === 'end_call' ? 'agent_hangup' : 'transferred';
}

/** The `action` a webhook reply may carry (SPEC's `{response}` plus this; other fields ignored). */
export const webhookActionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('end_call') }),
  z.object({ type: z.literal('transfer'), to: transferTargetSchema.nullish() }),
]);

export type ParsedAction = { ok: true; action: CallAction | null } | { ok: false; message: string };

/** Reads a webhook reply's `action`: absent or null is no action; anything else must be one of the schema's. */
export function parseWebhookAction(raw: unknown): ParsedAction {
  if (raw === undefined || raw === null) return { ok: true, action: null };
  const parsed = webhookActionSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${['action', ...i.path].join('.')}: ${i.message}`).join('; ');
    return { ok: false, message: `webhook reply has an invalid action (${detail}); it was ignored` };
  }
  const a = parsed.data;
  return { ok: true, action: a.type === 'end_call' ? { type: 'end_call' } : { type: 'transfer', to: a.to ?? null } };
}

/** A transfer without its own destination goes to the agent's `transfer_to` (which may be null too). */
export function withAgentTarget(action: CallAction, transferTo: string | null): CallAction {
  return action.type === 'transfer' && action.to === null ? { type: 'transfer', to: transferTo } : action;
}

/** LiveKit's `transferTo` wants a URI: a bare phone number becomes `tel:<number>` (spaces and punctuation dropped). */
export function sipTransferUri(to: string): string {
  if (/^(sips?|tel):/.test(to)) return to;
  return `tel:${to.replace(/[ ().-]/g, '')}`;
}
