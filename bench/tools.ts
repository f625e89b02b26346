/**
 * Tools in enhanced mode: what one tool round adds to a turn when the tool answers at once.
 *
 * One process: Parley (`openParley`, as main.ts wires it) against its own redis-server, a local
 * OpenAI-compatible server (test/support/openai-server.ts: streamed answers and tool calls, no
 * model time) and a tool server answering `{"status":"shipped"}` at once. One client sends
 * `POST /sdk/v1/chat` one request at a time (a new session per request), cycling through three
 * turns so machine noise hits them alike:
 * - `no tools`: an agent without tools (the plain, non-streamed LLM path);
 * - `tools offered, none called`: an agent with one tool; the model answers in text (one streamed round);
 * - `one tool round`: the same agent; the model calls the tool, Parley POSTs it, stores the call
 *   with its `tool_call` event, sends the result back, and the model answers (two streamed rounds).
 * Added by a tool round = `one tool round` − `tools offered, none called`: the second LLM request,
 * the tool's HTTP call, the argument check and the call's record. With a real model the second
 * request's own time (prompt processing, first token) comes on top.
 *
 *   node --import tsx bench/tools.ts        # bench/results/tools.{json,md}
 */
import { postJson } from '../src/outbound/post-json.js';
import { createAgent } from '../test/support/agents.js';
import { adminClient } from '../test/support/admin-client.js';
import { HttpReceiver } from '../test/support/http-receiver.js';
import { startOpenAiServer } from '../test/support/openai-server.js';
import { TestRedis } from '../test/support/redis-server.js';
import { benchAdminKey } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { isMain } from './lib/is-main.js';
import { median, summarize, type LatencySummary } from './lib/percentiles.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

const warmup = Number(process.env['TOOLS_BENCH_WARMUP'] ?? 60);
const iterations = Number(process.env['TOOLS_BENCH_ITERATIONS'] ?? 300);

const scenarios = ['no tools', 'tools offered, none called', 'one tool round'] as const;
type Scenario = (typeof scenarios)[number];

export interface ToolsReport {
  bench: 'tools';
  started_at: string;
  machine: ReturnType<typeof machineInfo>;
  iterations: number;
  latency: Record<Scenario, LatencySummary>;
  added_by_tool_round: { p50_ms: number; p90_ms: number; p99_ms: number };
  /**
   * Median over iterations of (one tool round − tools offered, none called), each pair measured
   * back to back: steadier than the difference of percentiles on a loaded machine.
   */
  added_paired_median_ms: number;
  /** The tool's HTTP call as Parley timed it (`tool_call.latency_ms` of stored calls). */
  tool_call_ms: LatencySummary;
}

export async function runToolsBench(): Promise<ToolsReport> {
  const started_at = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start();
  const tool = await HttpReceiver.start(() => ({ body: { status: 'shipped' } }));
  const llm = await startOpenAiServer((req) => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return 'It has shipped.';
    if (req.tools !== undefined && last?.content === 'Where is order A-1?')
      return { toolCalls: [{ name: 'lookup_order', arguments: { order_id: 'A-1' } }] };
    return 'Hello there.';
  });
  const config = await benchConfig(redis.url, { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'sk-bench' });
  const { parley, url: base } = await openBenchParley(config);
  const admin = adminClient(base, benchAdminKey);
  try {
    const plain = await createAgent(admin, { mode: 'enhanced' });
    const withTool = await createAgent(admin, {
      mode: 'enhanced',
      tools: [
        {
          name: 'lookup_order',
          description: 'Look up an order by its id.',
          parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
          url: `${tool.url}/orders`,
        },
      ],
    });
    const turns: Record<Scenario, { token: string; message: string }> = {
      'no tools': { token: plain.agent_token, message: 'Where is order A-1?' },
      'tools offered, none called': { token: withTool.agent_token, message: 'Hello?' },
      'one tool round': { token: withTool.agent_token, message: 'Where is order A-1?' },
    };
    const samples: Record<Scenario, number[]> = {
      'no tools': [],
      'tools offered, none called': [],
      'one tool round': [],
    };
    const sessions: string[] = [];
    for (let i = 0; i < warmup + iterations; i++) {
      for (const scenario of scenarios) {
        const { token, message } = turns[scenario];
        const body = JSON.stringify({ agent_token: token, message });
        const t0 = performance.now();
        const reply = await postJson(
          `${base}/sdk/v1/chat`,
          body,
          { 'Content-Type': 'application/json' },
          {
            timeoutMs: 10_000,
            maxResponseBytes: 64 * 1024,
          },
        );
        const ms = performance.now() - t0;
        if (reply.status !== 200) throw new Error(`chat answered ${reply.status}: ${reply.text}`);
        if (i < warmup) continue;
        samples[scenario].push(ms);
        if (scenario === 'one tool round')
          sessions.push((JSON.parse(reply.text!) as { session_id: string }).session_id);
      }
    }
    const toolMs: number[] = [];
    for (const sessionId of sessions.slice(-100)) {
      const list = await admin.request('GET', `/admin/v1/conversations?session_id=${sessionId}`);
      const c = await admin.request('GET', `/admin/v1/conversations/${list.body.data[0].id}`);
      for (const m of c.body.messages as { tool_call?: { latency_ms: number } }[])
        if (m.tool_call !== undefined) toolMs.push(m.tool_call.latency_ms);
    }
    const latency = Object.fromEntries(scenarios.map((s) => [s, summarize(samples[s])])) as Record<
      Scenario,
      LatencySummary
    >;
    const unused = latency['tools offered, none called'];
    const called = latency['one tool round'];
    return {
      bench: 'tools',
      started_at,
      machine,
      iterations,
      latency,
      added_by_tool_round: {
        p50_ms: called.p50_ms - unused.p50_ms,
        p90_ms: called.p90_ms - unused.p90_ms,
        p99_ms: called.p99_ms - unused.p99_ms,
      },
      added_paired_median_ms: median(calledMinusUnused(samples)),
      tool_call_ms: summarize(toolMs),
    };
  } finally {
    await parley.close();
    await Promise.all([llm.close(), tool.close()]);
    await redis.close();
  }
}

function calledMinusUnused(samples: Record<Scenario, number[]>): number[] {
  const unused = samples['tools offered, none called'];
  return samples['one tool round'].map((ms, i) => ms - unused[i]!);
}

export function toolsMarkdown(r: ToolsReport): string {
  const rows: (string | number)[][] = scenarios.map((s) => [
    s,
    round(r.latency[s].p50_ms),
    round(r.latency[s].p90_ms),
    round(r.latency[s].p99_ms),
  ]);
  rows.push([
    'added by one tool round',
    round(r.added_by_tool_round.p50_ms),
    round(r.added_by_tool_round.p90_ms),
    round(r.added_by_tool_round.p99_ms),
  ]);
  rows.push([
    '└ the tool call itself (`latency_ms`)',
    round(r.tool_call_ms.p50_ms),
    round(r.tool_call_ms.p90_ms),
    round(r.tool_call_ms.p99_ms),
  ]);
  return [
    `# tools (${r.started_at}, ${r.machine.cpu_model}, load ${r.machine.load_avg_1m})`,
    '',
    `POST /sdk/v1/chat, one at a time, ${r.iterations} turns each; instant LLM and tool.`,
    '',
    markdownTable(['turn', 'p50 ms', 'p90 ms', 'p99 ms'], rows, ['left', 'right', 'right', 'right']),
    '',
    `Added by one tool round, median of back-to-back pairs: ${round(r.added_paired_median_ms)} ms.`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const report = await runToolsBench();
  const md = toolsMarkdown(report);
  await publishResults('tools', report, md);
}
