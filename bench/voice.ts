/**
 * Voice pipeline benchmarks over the built-in WebSocket transport with instant STT and TTS
 * (bench/lib/instant-speech.ts), so that what is left is what Parley itself adds; an agent with
 * default settings.
 *
 * Processes: Parley runs in this process (its event loop and CPU are measured directly); the
 * voice clients run in a forked child (bench/lib/voice-load-side.ts) so generating load does not
 * take Parley's event loop; the operator's webhook (answers {"response":"ok"} at once) runs in a
 * third; redis-server in a fourth.
 *
 * (a) Turn latency (bench/voice/turn-latency.ts): what the user waits from the end of their
 *     speech to the first audio, Parley's share of it, and the text-turn baseline.
 * (b) Capacity (bench/voice/capacity.ts): sessions streaming at real-time pace until the frame
 *     lag passes its limit.
 * (c) The real recogniser (bench/voice/real-stt.ts): sessions speaking flite questions at
 *     real-time pace, pocketsphinx beside the instant stand-in at each count.
 *
 *   node --import tsx bench/voice.ts        # writes bench/results/voice.{json,md}
 */
import { fileURLToPath } from 'node:url';
import type { Parley } from '../src/parley.js';
import { PocketsphinxStt } from '../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { createBenchAgent } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { timeCalls } from './lib/call-timer.js';
import { instantSpeech } from './lib/instant-speech.js';
import { isMain } from './lib/is-main.js';
import { TestRedis } from '../test/support/redis-server.js';
import { machineInfo, publishResults } from './lib/report.js';
import { processCpuMs } from './lib/cpu-time.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { voiceBenchFixture } from './lib/voice-bench-audio.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import { serveWebhook } from './lib/webhook-server.js';
import { measureLoad } from './voice/capacity.js';
import { defaultVoiceBenchOptions, type VoiceBenchOptions } from './voice/options.js';
import { measures, renderMarkdown, row, type VoiceReport } from './voice/report.js';
import { measureRealStt } from './voice/real-stt.js';
import { CountingStt, withRealStt } from './voice/real-stt-speech.js';
import { findTriggers } from './voice/triggers.js';
import { measureTurns } from './voice/turn-latency.js';

export { defaultVoiceBenchOptions, type VoiceBenchOptions } from './voice/options.js';
export type { VoiceReport } from './voice/report.js';

const thisFile = fileURLToPath(import.meta.url);

export async function main(overrides: Partial<VoiceBenchOptions> = {}): Promise<VoiceReport> {
  const options = { ...defaultVoiceBenchOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start({ external: false, persistence: false });
  let webhook: ServerProcess | undefined;
  let parley: Parley | undefined;
  let clients: VoiceClientProcess | undefined;
  let realStt: CountingStt | undefined;
  try {
    webhook = await spawnServer({ name: 'voice-webhook', script: thisFile, args: ['--serve', 'webhook'] });
    const config = await benchConfig(redis.url, {
      PARLEY_VAD_SILENCE_FLOOR_DBFS: process.env['PARLEY_VAD_SILENCE_FLOOR_DBFS'],
      PARLEY_POCKETSPHINX_DECODERS: process.env['PARLEY_POCKETSPHINX_DECODERS'],
      PARLEY_POCKETSPHINX_THREADS: process.env['PARLEY_POCKETSPHINX_THREADS'],
    });
    realStt = new CountingStt(new PocketsphinxStt(config.pocketsphinx));
    let url: string;
    ({ parley, url } = await openBenchParley(config, { speech: withRealStt(instantSpeech(), realStt) }));
    // Probe (timed only while recording): the user-message write.
    const userWrites = timeCalls(
      parley.store.conversations,
      'appendMessage',
      (_id, input) => input.role === 'user' && input.timings !== null && input.timings !== undefined,
    );
    const agent = { name: 'Bench voice agent', webhook_url: `${webhook.url}/hook` };
    const agentToken = (await createBenchAgent(url, agent)).agent_token;
    const redisPid = Number(/process_id:(\d+)/.exec(String(await parley.redis.info('server')))?.[1] ?? Number.NaN);
    const triggers = await findTriggers(options, config.vadSilenceFloorDbfs);
    clients = await VoiceClientProcess.start();

    console.log(`voice (a): ${options.warmupTurns} + ${options.turns} audio turns, each followed by a text turn…`);
    const turnLatency = await measureTurns(options, {
      url,
      agentToken,
      webhookUrl: `${webhook.url}/hook`,
      redisUrl: redis.url,
      parley,
      clients,
      userWrites,
      triggers,
    });
    console.log(
      `voice (b): ramping sessions ${options.sessions.join(', ')} (budget ${options.loadBudgetMs / 1000} s)…`,
    );
    const load = await measureLoad(options, {
      url,
      agentToken,
      parley,
      clients,
      triggers: triggers.load,
      unloadedP50: row(turnLatency.rows, measures.clientTranscript).p50_ms,
      silenceFloorDbfs: config.vadSilenceFloorDbfs,
      cpu: {
        redis: () => processCpuMs(redisPid),
        webhook: () => webhook!.cpuMs(),
        clients: () => processCpuMs(clients!.pid),
      },
    });

    console.log(`voice (c): the real recogniser at ${options.sttSessions.join(', ')} sessions…`);
    const realSttReport =
      options.sttSessions.length === 0
        ? null
        : await measureRealStt(options, {
            url,
            webhookUrl: `${webhook.url}/hook`,
            parley,
            clients,
            stt: realStt,
            cpu: { clients: () => processCpuMs(clients!.pid) },
          });

    const report: VoiceReport = {
      bench: 'voice',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      options,
      clip: voiceBenchFixture,
      turn_latency: turnLatency,
      load,
      real_stt: realSttReport,
    };
    const markdown = renderMarkdown(report);
    await publishResults('voice', report, markdown);
    return report;
  } finally {
    await clients?.stop().catch(() => {}); // best effort: the child exits with this process anyway
    await parley?.close().catch(() => {}); // best effort at the end of a bench run
    await realStt?.inner.close();
    await webhook?.stop().catch(() => {}); // best effort: killed with this process anyway
    await redis.close();
  }
}

/** `VOICE_BENCH_QUICK=1`: a short run (under a minute) for a busy machine. */
const quick: Partial<VoiceBenchOptions> = {
  turns: 6,
  warmupTurns: 1,
  sessions: [4],
  streamMs: 5_000,
  loadBudgetMs: 15_000,
  sttSessions: [1, 4],
};

/** `VOICE_BENCH_SESSIONS=128,256,400`: the capacity steps to try instead of the ramp's (time budget to match). */
function sessionSteps(): Partial<VoiceBenchOptions> {
  const steps = process.env['VOICE_BENCH_SESSIONS'];
  if (steps === undefined) return {};
  const sessions = steps.split(',').map(Number);
  return { sessions, loadBudgetMs: sessions.length * 2 * 30_000 };
}

/** `VOICE_BENCH_STT_SESSIONS=1,4,8`: the counts of (c) ('' skips it). */
function sttSteps(): Partial<VoiceBenchOptions> {
  const steps = process.env['VOICE_BENCH_STT_SESSIONS'];
  return steps === undefined ? {} : { sttSessions: steps === '' ? [] : steps.split(',').map(Number) };
}

if (isMain(import.meta.url)) {
  const [flag, target] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else await main({ ...(process.env['VOICE_BENCH_QUICK'] === '1' ? quick : {}), ...sessionSteps(), ...sttSteps() });
}
