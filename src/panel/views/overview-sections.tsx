import type { JSX } from 'preact';
import type { MetricsJson, SessionOverview } from '../api/types.js';
import { ms, percentile, words } from '../ui/format.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { ErrorNote } from '../ui/status.js';
import type { TurnLatency } from './latency.js';
import type { Part } from './overview-data.js';

/** p50/p90 of the latest answered turns, and each turn's latency as a bar in time order. */
export function Latency({ latencies }: { latencies: Part<TurnLatency[]> }): JSX.Element {
  const turns = latencies.data;
  const values = turns?.map((t) => t.ms) ?? [];
  const max = Math.max(1, ...values);
  // At least 40 bar slots, newest on the right, so a few turns do not stretch across the page.
  const width = Math.max(40, values.length) * 6;
  return (
    <section>
      <h2>Latency</h2>
      {latencies.error !== undefined && <ErrorNote error={latencies.error} />}
      {turns !== undefined && turns.length === 0 && <p class="empty">No answered turns yet.</p>}
      {turns !== undefined && turns.length > 0 && (
        <>
          <p>
            Over the last {turns.length} answered turns of the 10 latest conversations (voice: end of speech to first
            audio; chat: message to answer): <strong>p50 {ms(percentile(values, 0.5))}</strong>,{' '}
            <strong>p90 {ms(percentile(values, 0.9))}</strong>.
          </p>
          <svg
            class="spark"
            viewBox={`0 0 ${width} 40`}
            preserveAspectRatio="none"
            role="img"
            aria-label={`Turn latencies in time order, from ${ms(Math.min(...values))} to ${ms(max)}`}
          >
            {turns.map((t, i) => (
              <rect
                key={i}
                x={width - (turns.length - i) * 6}
                y={40 - (t.ms / max) * 40}
                width={4}
                height={(t.ms / max) * 40}
              >
                <title>{`${new Date(t.at).toLocaleString()}: ${ms(t.ms)} (${t.kind})`}</title>
              </rect>
            ))}
          </svg>
        </>
      )}
    </section>
  );
}

const stageNames = [
  ['end_to_end', 'End to end'],
  ['endpointing', 'Endpointing'],
  ['stt', 'Speech to text'],
  ['response', 'Response'],
  ['first_audio', 'First audio'],
] as const;

/** Turn latency by stage as this server's histograms have it (/health/metrics, since it started). */
export function StageLatency({ turns }: { turns: NonNullable<MetricsJson['turns']> }): JSX.Element {
  return (
    <section>
      <h2>Turn latency by stage (this server, since start)</h2>
      <ScrollRegion label="Turn latency by stage">
        <table>
          <thead>
            <tr>
              <th scope="col">Stage</th>
              <th scope="col">Turns</th>
              <th scope="col">p50</th>
              <th scope="col">p90</th>
            </tr>
          </thead>
          <tbody>
            {stageNames.map(([key, name]) => {
              const l = turns.latency[key];
              return (
                <tr key={key}>
                  <td>{name}</td>
                  <td>{l.count}</td>
                  <td>{ms(l.p50_ms)}</td>
                  <td>{ms(l.p90_ms)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollRegion>
    </section>
  );
}

export function EndReasons({ overview }: { overview: SessionOverview }): JSX.Element {
  return (
    <section>
      <h2>Sessions by end reason</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">End reason</th>
            <th scope="col">Sessions</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(overview.by_end_reason).map(([reason, n]) => (
            <tr key={reason}>
              <td>{words(reason)}</td>
              <td>{n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** CPU, event-loop lag, Redis and uptime of the server that answered (/health/metrics). */
export function Server({ metrics }: { metrics: Part<MetricsJson> }): JSX.Element {
  const m = metrics.data;
  return (
    <section>
      <h2>Server</h2>
      {metrics.error !== undefined && <ErrorNote error={metrics.error} />}
      {m !== undefined && (
        <dl class="facts">
          <dt>CPU</dt>
          <dd>{m.cpu.percent.toFixed(0)} % of one core</dd>
          <dt>Event-loop lag p99</dt>
          <dd>{ms(m.event_loop.lag_p99_ms)}</dd>
          <dt>Redis</dt>
          <dd>{m.redis.ok ? `reachable, ${ms(m.redis.latency_ms)}` : 'unreachable'}</dd>
          <dt>Up for</dt>
          <dd>{Math.round(m.uptime_s / 60)} min</dd>
        </dl>
      )}
    </section>
  );
}
