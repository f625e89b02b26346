import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { query } from '../api/client.js';
import type {
  Agent,
  ErrorRecord,
  ErrorSummary,
  MetricsJson,
  Page,
  ProvidersHealth,
  Session,
  SessionOverview,
} from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { ms, percentile, plural, words } from '../ui/format.js';
import { ErrorNote, Loading } from '../ui/status.js';
import { useApi, useInterval } from '../ui/use-api.js';
import { recentLatencies, type TurnLatency } from './latency.js';
import { ReadinessOverview } from './readiness.js';
import { ScrollRegion } from '../ui/scroll-region.js';

function startOfToday(): string {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/** Live sessions, today's turns and errors, latency p50/p90 — refreshed every 10 s. */
export function OverviewView(): JSX.Element {
  const today = startOfToday();
  const overview = useApi<SessionOverview>('/admin/v1/sessions/stats/overview');
  const errors = useApi<ErrorSummary>('/admin/v1/errors/stats/summary');
  const metrics = useApi<MetricsJson>('/health/metrics');
  const todaySessions = useApi<Page<Session>>(`/admin/v1/sessions${query({ from: today, limit: 100 })}`);
  const todayErrors = useApi<Page<ErrorRecord>>(`/admin/v1/errors${query({ from: today, limit: 100 })}`);
  const agents = useApi<Page<Agent>>('/admin/v1/agents?limit=100');
  // Probed once per visit: /health/providers runs every provider's check.
  const providers = useApi<ProvidersHealth>('/health/providers');
  useInterval(() => [overview, errors, metrics, todaySessions, todayErrors, agents].forEach((r) => r.reload()), 10_000);
  const voiceLive = metrics.data?.sessions.live;

  const more = (p: Page<unknown> | undefined) => (p?.next_cursor ? ' or more' : '');
  const turnsToday = todaySessions.data?.data.reduce((n, s) => n + s.turns, 0);
  return (
    <>
      <PageTitle>Overview</PageTitle>
      {[overview, errors, todaySessions, todayErrors].map(
        (r, i) => r.error !== undefined && <ErrorNote key={i} error={r.error} />,
      )}
      <section aria-label="Figures" class="cards">
        {/* The sessions the Sessions page lists as live (chat and voice); voice calls running, apart. */}
        <Card
          label="Live sessions"
          value={overview.data?.active}
          link="/sessions?status=active"
          hint={`chat and voice${
            voiceLive === null || voiceLive === undefined ? '' : `; ${plural(voiceLive, 'voice call')} running`
          }`}
        />
        <Card
          label="Sessions started today"
          value={todaySessions.data && `${todaySessions.data.data.length}${more(todaySessions.data)}`}
        />
        <Card
          label="Turns today"
          value={turnsToday !== undefined ? `${turnsToday}${more(todaySessions.data)}` : undefined}
          hint="answered turns in sessions started today"
        />
        <Card
          label="Errors today"
          value={todayErrors.data && `${todayErrors.data.data.length}${more(todayErrors.data)}`}
          link="/errors"
        />
        <Card label="Open errors" value={errors.data?.open} link="/errors?status=open" />
        <Card label="Turns, all time" value={overview.data?.turns} />
      </section>
      <ReadinessOverview providers={providers} agents={agents} />
      <Latency />
      {metrics.data?.turns !== undefined && <StageLatency turns={metrics.data.turns} />}
      {overview.data !== undefined && (
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
              {Object.entries(overview.data.by_end_reason).map(([reason, n]) => (
                <tr key={reason}>
                  <td>{words(reason)}</td>
                  <td>{n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section>
        <h2>Server</h2>
        {metrics.error !== undefined && <ErrorNote error={metrics.error} />}
        {metrics.data === undefined ? (
          metrics.loading && <Loading what="Loading server metrics" />
        ) : (
          <dl class="facts">
            <dt>CPU</dt>
            <dd>{metrics.data.cpu.percent.toFixed(0)} % of one core</dd>
            <dt>Event-loop lag p99</dt>
            <dd>{ms(metrics.data.event_loop.lag_p99_ms)}</dd>
            <dt>Redis</dt>
            <dd>{metrics.data.redis.ok ? `reachable, ${ms(metrics.data.redis.latency_ms)}` : 'unreachable'}</dd>
            <dt>Up for</dt>
            <dd>{Math.round(metrics.data.uptime_s / 60)} min</dd>
          </dl>
        )}
      </section>
    </>
  );
}

function Card({ label, value, hint, link }: { label: string; value: unknown; hint?: string; link?: string }) {
  const shown = value === undefined || value === null ? '…' : String(value);
  return (
    <div class="card">
      <span class="card-label">{label}</span>
      <span class="card-value">{link !== undefined ? <Link href={link}>{shown}</Link> : shown}</span>
      {hint !== undefined && <small class="help">{hint}</small>}
    </div>
  );
}

/** p50/p90 of the latest answered turns, and each turn's latency as a bar in time order. */
function Latency(): JSX.Element {
  const [state, setState] = useState<{ turns?: TurnLatency[]; error?: unknown }>({});
  useEffect(() => {
    const controller = new AbortController();
    recentLatencies(10, controller.signal).then(
      (turns) => setState({ turns }),
      (error: unknown) => !controller.signal.aborted && setState({ error }),
    );
    return () => controller.abort();
  }, []);
  const turns = state.turns;
  const values = turns?.map((t) => t.ms) ?? [];
  const max = Math.max(1, ...values);
  // At least 40 bar slots, newest on the right, so a few turns do not stretch across the page.
  const width = Math.max(40, values.length) * 6;
  return (
    <section>
      <h2>Latency</h2>
      {state.error !== undefined && <ErrorNote error={state.error} />}
      {turns === undefined && state.error === undefined && <Loading what="Reading recent conversations" />}
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
function StageLatency({ turns }: { turns: NonNullable<MetricsJson['turns']> }): JSX.Element {
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
