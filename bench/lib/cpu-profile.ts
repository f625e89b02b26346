import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where CPU time went in a V8 `.cpuprofile`, by self time. */
export interface ProfileSummary {
  file: string;
  /** Sampled time that was not idle, ms. */
  busy_ms: number;
  /** Self time by package (`koa`, `@redis/client`), Parley file (`src/…`), `node:…` or V8 bucket. */
  by_area: { area: string; ms: number; share: number }[];
  /** The functions with the most self time. */
  top_functions: { fn: string; area: string; ms: number; share: number }[];
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

function areaOf(url: string, functionName: string): string {
  if (url === '') return `(${functionName.replace(/^\(|\)$/g, '') || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1]!;
  const src = /\/((?:src|bench|machines)\/.*)$/.exec(url);
  if (src !== null) return src[1]!;
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url;
}

/** Summarises the largest profile in `dir` (the main thread; tsx adds a small loader thread). */
export function summarizeProfile(dir: string, top = 20): ProfileSummary | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return undefined;
  const file = files.map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const areas = new Map<string, number>();
  const functions = new Map<string, { area: string; us: number }>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busyUs += us;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'}${url === '' ? '' : ` ${area}:${lineNumber + 1}`}`;
    const entry = functions.get(fn) ?? { area, us: 0 };
    entry.us += us;
    functions.set(fn, entry);
  }
  const share = (us: number) => Math.round((us / busyUs) * 1000) / 10;
  return {
    file,
    busy_ms: Math.round(busyUs / 1000),
    by_area: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, us]) => ({ area, ms: Math.round(us / 1000), share: share(us) })),
    top_functions: [...functions]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([fn, { area, us }]) => ({ fn, area, ms: Math.round(us / 1000), share: share(us) })),
  };
}
