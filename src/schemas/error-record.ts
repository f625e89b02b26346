import { z } from 'zod';
import { timestampSchema } from './common.js';

export const errorStatuses = ['open', 'resolved'] as const;
export type ErrorStatus = (typeof errorStatuses)[number];

/** Error types Parley records; `type` stays an open string so new kinds need no migration. */
export const knownErrorTypes = [
  'webhook_http_error',
  'webhook_timeout',
  'webhook_invalid_response',
  'llm_error',
  'llm_not_configured',
  'event_delivery_failed',
  'session_failed',
  'telephony_bad_signature',
] as const;

export const errorRecordSchema = z
  .object({
    id: z.string().meta({ example: 'err_01jd3n6v8m0000000000000000' }),
    type: z.string().meta({ description: `What failed, e.g. ${knownErrorTypes.join(', ')}.` }),
    message: z.string(),
    agent_id: z.string().nullable(),
    session_id: z.string().nullable(),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'HTTP status the upstream (webhook, LLM, events address) answered.' }),
    latency_ms: z.number().nullable().meta({ description: 'How long the failed call took.' }),
    details: z.record(z.string(), z.unknown()),
    status: z.enum(errorStatuses),
    resolved_at: timestampSchema.nullable(),
    resolution_note: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'ErrorRecord' });

export type ErrorRecord = z.infer<typeof errorRecordSchema>;

/** What services pass to `ErrorRepository.record`. */
export interface ErrorRecordCreate {
  type: string;
  message: string;
  agent_id?: string | null | undefined;
  session_id?: string | null | undefined;
  status_code?: number | null | undefined;
  latency_ms?: number | null | undefined;
  details?: Record<string, unknown> | undefined;
}

export const errorResolveSchema = z
  .strictObject({
    note: z.string().max(2000).optional().meta({ description: 'Why or how it was resolved.' }),
  })
  .meta({ id: 'ErrorResolve' });

export const errorSummarySchema = z
  .object({
    total: z.number().int(),
    open: z.number().int(),
    resolved: z.number().int(),
    by_type: z.record(z.string(), z.object({ total: z.number().int(), open: z.number().int() })),
    last_24h: z.number().int().meta({ description: 'Errors recorded in the last 24 hours.' }),
  })
  .meta({ id: 'ErrorSummary' });

export type ErrorSummary = z.infer<typeof errorSummarySchema>;
