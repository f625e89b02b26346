import { z } from 'zod';
import { builtInPresetSchema } from '../../../schemas/preset.js';
import { capabilities } from '../../../schemas/provider-catalog.js';

export const healthSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    uptime_s: z.number().meta({ description: 'Seconds since this instance started' }),
    telephony: z.object({
      twilio: z.enum(['configured', 'not_configured']).meta({
        description: 'Phone calls through Twilio Media Streams: `not_configured` without TWILIO_AUTH_TOKEN.',
      }),
    }),
    recordings: z
      .object({
        store: z.literal('s3'),
        bucket: z
          .string()
          .meta({ description: '`s3://<bucket>/<prefix>` (PARLEY_RECORDINGS_URL, never its credentials)' }),
        status: z.enum(['ok', 'error']),
        detail: z.string().nullable().meta({ description: "The bucket's last failure, while it fails" }),
      })
      .optional()
      .meta({
        description:
          'Only with a recordings bucket: `error` while the last request to it (start-up check, upload, sweep) failed; recordings then wait in the spool on disk.',
      }),
  })
  .meta({ id: 'Health' });

export const readinessSchema = z
  .object({
    status: z.literal('ready'),
    redis: z.object({ ok: z.literal(true), latency_ms: z.number().meta({ description: 'Round trip of one PING' }) }),
  })
  .meta({ id: 'Readiness' });

export const livenessSchema = z.object({ status: z.literal('alive') }).meta({ id: 'Liveness' });

const providerCheckSchema = z
  .object({
    capability: z.enum(capabilities),
    provider: z.string(),
    status: z.enum(['ok', 'not_configured', 'error']),
    latency_ms: z
      .number()
      .nullable()
      .meta({ description: 'Duration of the probe; null when none ran or it got no answer' }),
    detail: z.string().nullable(),
    needed_by: z
      .object({
        count: z.number().int().meta({ description: 'Agents whose settings use this provider for what they serve.' }),
        unserved: z.number().int().meta({ description: 'Of those, the agents it cannot serve here.' }),
        agents: z
          .array(z.object({ id: z.string(), name: z.string() }))
          .meta({ description: 'The first 20 of them; empty unless the request carries the admin X-API-Key.' }),
      })
      .meta({
        description:
          'Agents needing this provider: voice needs STT and TTS, enhanced mode the LLM (the built-in preset for agents without one).',
      }),
  })
  .meta({ id: 'ProviderCheck' });

export const providersHealthSchema = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({
      description:
        '`degraded` when a configured provider failed its probe, or a provider an agent needs cannot run here',
    }),
    providers: z.array(providerCheckSchema),
    built_in: builtInPresetSchema.shape.choices.meta({
      description:
        'The built-in preset (agents with preset_id null): per capability the provider chosen from what is usable now, and whether it works here',
    }),
  })
  .meta({ id: 'ProvidersHealth' });

const latencySummarySchema = z
  .object({
    count: z.number().int(),
    p50_ms: z.number().nullable(),
    p90_ms: z.number().nullable(),
  })
  .meta({
    id: 'LatencySummary',
    description:
      'Observations since this instance started, with p50/p90 interpolated from the Prometheus histogram buckets (null without observations)',
  });

const countsSchema = z.record(z.string(), z.number().int());

/** One process's figures; the top level of /health/metrics has the same fields as totals. */
const processFigures = {
  uptime_s: z.number(),
  memory: z.object({
    rss_bytes: z.number().int(),
    heap_used_bytes: z.number().int(),
    heap_total_bytes: z.number().int(),
    external_bytes: z.number().int(),
  }),
  cpu: z.object({
    user_ms: z.number().meta({ description: 'Process CPU time in user mode since start' }),
    system_ms: z.number().meta({ description: 'Process CPU time in kernel mode since start' }),
    percent: z.number().meta({ description: 'CPU use since the previous sample, in percent of one core' }),
  }),
  event_loop: z
    .object({ lag_p50_ms: z.number(), lag_p99_ms: z.number(), lag_max_ms: z.number() })
    .meta({ description: 'Event-loop delay since the previous sample' }),
  redis: z.object({ ok: z.boolean(), latency_ms: z.number().nullable() }),
  sessions: z.object({
    live: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Running voice sessions, all replicas; null if Redis is down' }),
  }),
  http: z
    .object({ requests: z.number().int(), by_status_class: countsSchema, latency: latencySummarySchema })
    .meta({ description: 'HTTP requests served by this instance (`parley_http_request_duration_seconds`)' }),
  turns: z
    .object({
      total: z.number().int(),
      by_status: countsSchema,
      latency: z.object({
        endpointing: latencySummarySchema,
        stt: latencySummarySchema,
        response: latencySummarySchema,
        first_audio: latencySummarySchema,
        end_to_end: latencySummarySchema,
      }),
    })
    .meta({
      description: 'Agent answers recorded by this instance (`parley_turns_total`, `parley_turn_latency_seconds`)',
    }),
  webhooks: z
    .object({ total: z.number().int(), by_outcome: countsSchema, latency: latencySummarySchema })
    .meta({ description: 'Webhook calls by outcome (`parley_webhook_duration_seconds`)' }),
  events: z
    .object({ delivered: z.number().int(), retried: z.number().int(), failed: z.number().int() })
    .meta({ description: 'Async event delivery attempts by outcome (`parley_event_deliveries_total`)' }),
  voice_sessions: z
    .object({ by_transport: countsSchema })
    .meta({ description: 'Voice sessions running in this instance by transport (`parley_voice_sessions`)' }),
};

export const metricsJsonSchema = z
  .object({
    ...processFigures,
    workers: z
      .object({
        configured: z.number().int().meta({ description: 'PARLEY_WORKERS (1: a single process)' }),
        running: z.number().int().meta({ description: 'Worker processes up and serving now' }),
        restarts: z.number().int().meta({ description: 'Worker processes restarted after a crash since start' }),
      })
      .meta({ description: 'The worker processes serving this port' }),
    processes: z
      .array(
        z
          .object({
            worker: z
              .number()
              .int()
              .nullable()
              .meta({ description: 'Worker slot (1..PARLEY_WORKERS); null in a single-process Parley' }),
            pid: z.number().int(),
            ...processFigures,
          })
          .meta({ id: 'ProcessMetrics' }),
      )
      .meta({ description: 'Each worker process that answered within 2 s; the top-level figures are their totals' }),
  })
  .meta({
    id: 'Metrics',
    description:
      'Totals over the worker processes (sums; event-loop lag and uptime of the worst/oldest process; Redis and `sessions.live` as the answering process sees them), then `workers` and `processes`',
  });
