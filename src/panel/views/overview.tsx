import type { JSX } from 'preact';
import type { Page } from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { plural } from '../ui/format.js';
import { ErrorNote, Loading } from '../ui/status.js';
import { useOverview, type OverviewData } from './overview-data.js';
import { EndReasons, Latency, Server, StageLatency } from './overview-sections.js';
import { ReadinessOverview } from './readiness.js';

/**
 * Live sessions, today's turns and errors, readiness, latency, server — loaded in one go (one
 * loading state, then the whole page) and refreshed every 10 s.
 */
export function OverviewView(): JSX.Element {
  const o = useOverview();
  return (
    <>
      <PageTitle>Overview</PageTitle>
      {o === undefined ? <Loading what="Loading the overview" /> : <Overview o={o} />}
    </>
  );
}

function Overview({ o }: { o: OverviewData }): JSX.Element {
  return (
    <>
      {[o.sessions, o.errors, o.todaySessions, o.todayErrors].map(
        (r, i) => r.error !== undefined && <ErrorNote key={i} error={r.error} />,
      )}
      <Figures o={o} />
      <ReadinessOverview providers={o.providers} agents={o.agents} />
      <Latency latencies={o.latencies} />
      {o.metrics.data?.turns !== undefined && <StageLatency turns={o.metrics.data.turns} />}
      {o.sessions.data !== undefined && <EndReasons overview={o.sessions.data} />}
      <Server metrics={o.metrics} />
    </>
  );
}

function Figures({ o }: { o: OverviewData }): JSX.Element {
  const more = (p: Page<unknown> | undefined) => (p?.next_cursor ? ' or more' : '');
  const today = o.todaySessions.data;
  const turnsToday = today?.data.reduce((n, s) => n + s.turns, 0);
  const voiceLive = o.metrics.data?.sessions.live;
  return (
    <section aria-label="Figures" class="cards">
      {/* The sessions the Sessions page lists as live (chat and voice); voice calls running, apart. */}
      <Card
        label="Live sessions"
        value={o.sessions.data?.active}
        link="/sessions?status=active"
        hint={`chat and voice${
          voiceLive === null || voiceLive === undefined ? '' : `; ${plural(voiceLive, 'voice call')} running`
        }`}
      />
      <Card label="Sessions started today" value={today && `${today.data.length}${more(today)}`} />
      <Card
        label="Turns today"
        value={turnsToday !== undefined ? `${turnsToday}${more(today)}` : undefined}
        hint="answered turns in sessions started today"
      />
      <Card
        label="Errors today"
        value={o.todayErrors.data && `${o.todayErrors.data.data.length}${more(o.todayErrors.data)}`}
        link="/errors"
      />
      <Card label="Open errors" value={o.errors.data?.open} link="/errors?status=open" />
      <Card label="Turns, all time" value={o.sessions.data?.turns} />
    </section>
  );
}

/** A figure; `—` when its answer failed (the error is shown above the cards). */
function Card({ label, value, hint, link }: { label: string; value: unknown; hint?: string; link?: string }) {
  const shown = value === undefined || value === null ? '—' : String(value);
  return (
    <div class="card">
      <span class="card-label">{label}</span>
      <span class="card-value">{link !== undefined ? <Link href={link}>{shown}</Link> : shown}</span>
      {hint !== undefined && <small class="help">{hint}</small>}
    </div>
  );
}
