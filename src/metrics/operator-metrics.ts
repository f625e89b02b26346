import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { summarize, type LatencySummary, type MetricFamily } from './quantiles.js';

/**
 * What an operator watches (README "Operator metrics"): request durations, turn latencies, live
 * voice sessions, webhook and event delivery outcomes. Prometheus counters and histograms in the
 * instance's registry; the JSON summary of /health/metrics (and so the panel's overview) is
 * computed from the same series.
 */

/** The stages of a turn's timings that get a latency histogram, by their key in the stored timings. */
export const turnStages = {
  endpointing: 'endpointing_ms',
  stt: 'stt_ms',
  response: 'response_ms',
  first_audio: 'first_audio_ms',
  end_to_end: 'end_to_end_ms',
} as const;
export type TurnStage = keyof typeof turnStages;

/** Stages known once the answer is generated; the rest are known once its first audio is out. */
const answerStages: TurnStage[] = ['endpointing', 'stt', 'response'];
const playbackStages: TurnStage[] = ['first_audio', 'end_to_end'];

export type WebhookOutcome =
  'ok' | 'http_error' | 'timeout' | 'invalid_response' | 'network_error' | 'aborted' | 'not_configured';
export type EventDeliveryOutcome = 'delivered' | 'retried' | 'failed';

/** Where turn timings are recorded (the turn recorder) reports them here. */
export interface TurnObserver {
  /** An answer was stored: counts it and observes the stages known by then (not for failed turns). */
  turnAnswered(channel: 'chat' | 'voice', status: string, timings: Record<string, number>): void;
  /** A voice answer's playback ended: observes first audio and end to end. */
  turnPlayed(timings: Record<string, number>): void;
}

export interface WebhookObserver {
  webhook(outcome: WebhookOutcome, latencyMs: number): void;
}

export interface EventDeliveryObserver {
  eventDelivery(type: string, outcome: EventDeliveryOutcome): void;
}

export interface OperatorMetricsJson {
  http: { requests: number; by_status_class: Record<string, number>; latency: LatencySummary };
  turns: { total: number; by_status: Record<string, number>; latency: Record<TurnStage, LatencySummary> };
  webhooks: { total: number; by_outcome: Record<string, number>; latency: LatencySummary };
  events: Record<EventDeliveryOutcome, number>;
  voice_sessions: { by_transport: Record<string, number> };
}

const httpBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const turnBuckets = [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];
const emptySummary: LatencySummary = { count: 0, p50_ms: null, p90_ms: null };

export class OperatorMetrics implements TurnObserver, WebhookObserver, EventDeliveryObserver {
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly turnLatency: Histogram<'stage' | 'channel'>;
  private readonly turns: Counter<'channel' | 'status'>;
  private readonly webhookDuration: Histogram<'outcome'>;
  private readonly events: Counter<'type' | 'outcome'>;
  private voiceSessions: () => Map<string, number> = () => new Map();

  constructor(private readonly registry: Registry) {
    const registers = [registry];
    this.http = new Histogram({
      name: 'parley_http_request_duration_seconds',
      help: 'HTTP requests by method, matched route (`unmatched` for none) and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: httpBuckets,
      registers,
    });
    this.turnLatency = new Histogram({
      name: 'parley_turn_latency_seconds',
      help: 'Latency of each stage of an answered turn (endpointing, stt, response, first_audio, end_to_end), by channel.',
      labelNames: ['stage', 'channel'],
      buckets: turnBuckets,
      registers,
    });
    this.turns = new Counter({
      name: 'parley_turns_total',
      help: 'Agent answers stored, by channel and status (complete, interrupted, failed).',
      labelNames: ['channel', 'status'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'parley_webhook_duration_seconds',
      help: 'Webhook (transcription_complete) calls by outcome; the count is the number of calls.',
      labelNames: ['outcome'],
      buckets: turnBuckets,
      registers,
    });
    this.events = new Counter({
      name: 'parley_event_deliveries_total',
      help: 'Async event delivery attempts by event type and outcome (delivered, retried, failed after the last try).',
      labelNames: ['type', 'outcome'],
      registers,
    });
    const sessions = () => this.voiceSessions();
    new Gauge({
      name: 'parley_voice_sessions',
      help: 'Voice sessions running in this process, by transport.',
      labelNames: ['transport'],
      registers,
      collect() {
        this.reset();
        for (const [transport, n] of sessions()) this.set({ transport }, n);
      },
    });
  }

  /** The source of the live voice session gauge (the session supervisor). */
  countVoiceSessionsWith(count: () => Map<string, number>): void {
    this.voiceSessions = count;
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.observe({ method, route, status: String(status) }, seconds);
  }

  turnAnswered(channel: 'chat' | 'voice', status: string, timings: Record<string, number>): void {
    this.turns.inc({ channel, status });
    if (status !== 'failed') this.observeStages(channel, answerStages, timings);
  }

  turnPlayed(timings: Record<string, number>): void {
    this.observeStages('voice', playbackStages, timings);
  }

  webhook(outcome: WebhookOutcome, latencyMs: number): void {
    this.webhookDuration.observe({ outcome }, latencyMs / 1000);
  }

  eventDelivery(type: string, outcome: EventDeliveryOutcome): void {
    this.events.inc({ type, outcome });
  }

  /** This instance's figures (the JSON of /health/metrics; the panel's overview). */
  async json(): Promise<OperatorMetricsJson> {
    return operatorJson(this.registry);
  }

  private observeStages(channel: string, stages: TurnStage[], timings: Record<string, number>): void {
    for (const stage of stages) {
      const ms = timings[turnStages[stage]];
      if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)
        this.turnLatency.observe({ stage, channel }, ms / 1000);
    }
  }
}

/** The family `name` of a registry, its collectors run (undefined when the registry has none). */
async function family(registry: Registry, name: string): Promise<MetricFamily | undefined> {
  return (await registry.getSingleMetric(name)?.get()) as MetricFamily | undefined;
}

/** Sums of a family's values by one label (of the series named `metricName`, when given). */
function sumBy(metric: MetricFamily | undefined, label: string, metricName?: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of metric?.values ?? []) {
    if (metricName !== undefined && (v as { metricName?: string }).metricName !== metricName) continue;
    const key = String((v.labels as Record<string, string | number>)[label]);
    out[key] = (out[key] ?? 0) + v.value;
  }
  return out;
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

/**
 * The operator figures of a registry holding OperatorMetrics' series: one instance's own registry,
 * or the sum of several processes' (prom-client's `AggregatorRegistry.aggregate`, src/metrics/cluster-metrics.ts).
 */
export async function operatorJson(registry: Registry): Promise<OperatorMetricsJson> {
  const [http, turnLatency, turns, webhooks, events, voice] = await Promise.all(
    [
      'parley_http_request_duration_seconds',
      'parley_turn_latency_seconds',
      'parley_turns_total',
      'parley_webhook_duration_seconds',
      'parley_event_deliveries_total',
      'parley_voice_sessions',
    ].map((name) => family(registry, name)),
  );
  const byStatusClass: Record<string, number> = {};
  for (const [status, n] of Object.entries(sumBy(http, 'status', 'parley_http_request_duration_seconds_count'))) {
    const cls = `${status.charAt(0)}xx`;
    byStatusClass[cls] = (byStatusClass[cls] ?? 0) + n;
  }
  const byTurnStatus = sumBy(turns, 'status');
  const eventCounts = sumBy(events, 'outcome');
  const turnsByStage = summarize(turnLatency, 'stage');
  const webhookByCount = Object.fromEntries(
    Object.entries(summarize(webhooks, 'outcome')).map(([k, s]) => [k, s.count]),
  );
  return {
    http: {
      requests: sum(byStatusClass),
      by_status_class: byStatusClass,
      latency: summarize(http)['all'] ?? emptySummary,
    },
    turns: {
      total: sum(byTurnStatus),
      by_status: byTurnStatus,
      latency: Object.fromEntries(
        (Object.keys(turnStages) as TurnStage[]).map((stage) => [stage, turnsByStage[stage] ?? emptySummary]),
      ) as Record<TurnStage, LatencySummary>,
    },
    webhooks: {
      total: sum(webhookByCount),
      by_outcome: webhookByCount,
      latency: summarize(webhooks)['all'] ?? emptySummary,
    },
    events: {
      delivered: eventCounts['delivered'] ?? 0,
      retried: eventCounts['retried'] ?? 0,
      failed: eventCounts['failed'] ?? 0,
    },
    voice_sessions: { by_transport: sumBy(voice, 'transport') },
  };
}
