import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';

const scriptsDir = fileURLToPath(new URL('../../src/store/scripts/', import.meta.url));

/** One command a client sent, as MONITOR reported it. */
export interface TracedCommand {
  /** Microseconds since the first traced command. */
  at_us: number;
  /** `GET`, `EVALSHA take_token`, `MULTI`, … (scripts named by their file). */
  command: string;
  /** The client connection (`ip:port`); commands run inside Lua are not listed. */
  client: string;
}

/** SHA1 → script name for src/store/scripts/*.lua, so EVALSHA lines say which script ran. */
function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of readdirSync(scriptsDir)) {
    if (!file.endsWith('.lua')) continue;
    const sha = createHash('sha1')
      .update(readFileSync(scriptsDir + file, 'utf8'))
      .digest('hex');
    names.set(sha, file.slice(0, -'.lua'.length));
  }
  return names;
}

/** `1700000000.123456 [0 127.0.0.1:5555] "evalsha" "abc" "1" "key"` → parts. */
function parseMonitorLine(line: string): { ts: number; client: string; args: string[] } | undefined {
  const match = /^(\d+\.\d+) \[\d+ ([^\]]+)\] (.*)$/.exec(line);
  if (match === null) return undefined;
  const args = [...match[3]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
  return { ts: Number(match[1]), client: match[2]!, args };
}

/**
 * Runs `action` under Redis MONITOR and returns the commands clients sent meanwhile, in order,
 * minus those run inside Lua scripts and those whose keys match `ignoreKey` (e.g. a job queue's
 * polling). For counting what one request costs in Redis commands; MONITOR slows Redis, so never
 * time anything while tracing.
 */
export async function traceRedis(
  redisUrl: string,
  action: () => Promise<unknown>,
  ignoreKey?: RegExp,
): Promise<TracedCommand[]> {
  const names = scriptNames();
  const marker = `bench-trace-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const lines: string[] = [];
  const monitor = createClient({ url: redisUrl });
  const control = createClient({ url: redisUrl });
  await Promise.all([monitor.connect(), control.connect()]);
  try {
    await monitor.monitor((line) => lines.push(String(line)));
    await control.echo(`${marker}-start`);
    await action();
    await control.echo(`${marker}-end`);
    const deadline = Date.now() + 5_000;
    while (!lines.some((l) => l.includes(`${marker}-end`))) {
      if (Date.now() > deadline) throw new Error('MONITOR did not report the end marker');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    monitor.destroy();
    control.destroy();
  }
  const start = lines.findIndex((l) => l.includes(`${marker}-start`));
  const end = lines.findIndex((l) => l.includes(`${marker}-end`));
  const parsed = lines
    .slice(start + 1, end)
    .map(parseMonitorLine)
    .filter((l): l is NonNullable<typeof l> => l !== undefined && l.client !== 'lua' && !l.client.endsWith(' lua'));
  const kept = parsed.filter((l) => ignoreKey === undefined || !l.args.slice(1).some((a) => ignoreKey.test(a)));
  const t0 = kept[0]?.ts ?? 0;
  return kept.map((l) => {
    const name = (l.args[0] ?? '?').toUpperCase();
    const script = name === 'EVALSHA' ? ` ${names.get(l.args[1] ?? '') ?? (l.args[1] ?? '').slice(0, 8)}` : '';
    return { at_us: Math.round((l.ts - t0) * 1e6), command: name + script, client: l.client };
  });
}
