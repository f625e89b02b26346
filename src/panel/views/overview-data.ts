import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api/client.js';
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
import { recentLatencies, type TurnLatency } from './latency.js';

/** One answer the overview shows, or why it has none: a failed part leaves the others shown. */
export type Part<T> = { data: T; error?: undefined } | { data?: undefined; error: unknown };

export interface OverviewData {
  sessions: Part<SessionOverview>;
  errors: Part<ErrorSummary>;
  metrics: Part<MetricsJson>;
  todaySessions: Part<Page<Session>>;
  todayErrors: Part<Page<ErrorRecord>>;
  agents: Part<Page<Agent>>;
  providers: Part<ProvidersHealth>;
  latencies: Part<TurnLatency[]>;
}

function startOfToday(): string {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

async function part<T>(answer: Promise<T>): Promise<Part<T>> {
  try {
    return { data: await answer };
  } catch (error) {
    return { error };
  }
}

/**
 * Everything the overview shows, asked for at once and handed over in one piece when the last
 * answer is in, so the page renders once instead of section by section. Refreshed the same way
 * every `refreshMs` after the previous load; /health/providers (it probes every provider) and the
 * latest conversations' latencies are read once per visit. Undefined until the first load is in.
 */
export function useOverview(refreshMs = 10_000): OverviewData | undefined {
  const [data, setData] = useState<OverviewData | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    const get = <T>(path: string) => part(api<T>(path, { signal }));
    const once = Promise.all([get<ProvidersHealth>('/health/providers'), part(recentLatencies(10, signal))]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      const today = query({ from: startOfToday(), limit: 100 });
      const [sessions, errors, metrics, todaySessions, todayErrors, agents, [providers, latencies]] = await Promise.all(
        [
          get<SessionOverview>('/admin/v1/sessions/stats/overview'),
          get<ErrorSummary>('/admin/v1/errors/stats/summary'),
          get<MetricsJson>('/health/metrics'),
          get<Page<Session>>(`/admin/v1/sessions${today}`),
          get<Page<ErrorRecord>>(`/admin/v1/errors${today}`),
          get<Page<Agent>>('/admin/v1/agents?limit=100'),
          once,
        ],
      );
      if (signal.aborted) return; // the view closed: its answers (aborted) are not shown
      setData({ sessions, errors, metrics, todaySessions, todayErrors, agents, providers, latencies });
      timer = setTimeout(() => void load(), refreshMs);
    };
    void load();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [refreshMs]);
  return data;
}
