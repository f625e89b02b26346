/**
 * Phone calls through the carrier transport (Twilio Media Streams: the fake carrier's signed
 * webhook, 8 kHz μ-law at real-time pace, marks acknowledged as the audio plays) against the same
 * sessions over the WebSocket transport (16 kHz PCM16), in one run: Parley's CPU per session-second
 * (its own process, /proc), the user's wait (the client's end of speech → first audio, and Parley's
 * own timings: end_to_end_ms and its share without endpointing and the providers), with instant
 * STT/TTS (bench/lib/instant-speech.ts) and a webhook in its own process answering at once. Then
 * the μ-law/resampling cost per audio second, and Silero at 8 kHz natively against the pipeline's
 * upsampled 16 kHz on the same phone audio.
 *
 *   node --import tsx bench/telephony.ts          # writes bench/results/telephony.{json,md}
 *   TELEPHONY_BENCH_QUICK=1 …                     # under a minute
 */
import { fileURLToPath } from 'node:url';
import { fliteSay } from '../test/support/flite-speech.js';
import { TestRedis } from '../test/support/redis-server.js';
import { createBenchAgent, shareOf, timingsOf } from './lib/bench-api.js';
import { serveBenchParley } from './lib/bench-parley.js';
import { instantSpeech } from './lib/instant-speech.js';
import { isMain } from './lib/is-main.js';
import { summarize } from './lib/percentiles.js';
import { machineInfo, publishResults } from './lib/report.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { serveWebhook } from './lib/webhook-server.js';
import { runCalls, type CallsPlan, type Transport } from './telephony/callers.js';
import { measureCodecCost } from './telephony/codec-cost.js';
import { renderMarkdown, type TelephonyReport, type TransportRow } from './telephony/report.js';
import { measureVadRate } from './telephony/vad-rate.js';

const thisFile = fileURLToPath(import.meta.url);
const number = '+15105550142';
const benchAuthToken = 'telephony-bench-auth-token';
const question = 'What time do you open tomorrow?';
const vadSentences = [
  question,
  'I would like to move my appointment to Friday afternoon.',
  'Can you tell me how much the delivery costs?',
  'My account number is four five six seven.',
  'Thanks, that is all I needed today.',
  'Please call me back after six.',
];

export interface TelephonyBenchOptions {
  sessions: number;
  turns: number;
  gapMs: number;
  /** Transport runs, alternating (websocket, carrier, websocket, …). */
  rounds: number;
  codecSeconds: number;
}

export const defaultOptions: TelephonyBenchOptions = {
  sessions: 20,
  turns: 6,
  gapMs: 800,
  rounds: 2,
  codecSeconds: 60,
};
const quick: Partial<TelephonyBenchOptions> = { sessions: 6, turns: 3, rounds: 1, codecSeconds: 10 };

async function runTransport(transport: Transport, plan: CallsPlan, parley: ServerProcess): Promise<TransportRow> {
  const cpu0 = parley.cpuMs();
  const client0 = process.cpuUsage();
  const result = await runCalls(transport, plan);
  const clientCpu = process.cpuUsage(client0);
  const parleyCpu = parley.cpuMs() - cpu0;
  const timings = await timingsOf(plan.url, result.session_ids);
  return {
    transport,
    sessions: plan.sessions,
    turns_answered: result.waits_ms.length,
    missed: result.missed,
    session_seconds: result.session_seconds,
    parley_cpu_ms_per_session_s: parleyCpu / result.session_seconds,
    client_cpu_ms_per_session_s: (clientCpu.user + clientCpu.system) / 1000 / result.session_seconds,
    client_wait: summarize(result.waits_ms),
    parley_end_to_end: summarize(timings.map((t) => t['end_to_end_ms']!)),
    parley_share: summarize(timings.map(shareOf)),
  };
}

export async function main(overrides: Partial<TelephonyBenchOptions> = {}): Promise<TelephonyReport> {
  const options = { ...defaultOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start({ external: false, persistence: false });
  let webhook: ServerProcess | undefined;
  let parley: ServerProcess | undefined;
  try {
    webhook = await spawnServer({ name: 'telephony-webhook', script: thisFile, args: ['--serve', 'webhook'] });
    parley = await spawnServer({ name: 'telephony-parley', script: thisFile, args: ['--serve', 'parley', redis.url] });
    const agent = await createBenchAgent(parley.url, {
      name: 'Bench phone agent',
      webhook_url: `${webhook.url}/hook`,
      greeting: null,
      phone_numbers: [number],
    });
    const plan: CallsPlan = {
      url: parley.url,
      agentToken: agent.agent_token,
      number,
      authToken: benchAuthToken,
      sessions: options.sessions,
      turns: options.turns,
      speech: fliteSay(question),
      gapMs: options.gapMs,
      answerTimeoutMs: 3000,
    };
    // warm-up: one session each way, not counted
    for (const t of ['websocket', 'carrier'] as const) await runCalls(t, { ...plan, sessions: 1, turns: 1 });
    const transports: TransportRow[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const t of ['websocket', 'carrier'] as const) {
        console.log(`telephony: round ${round + 1}, ${options.sessions} sessions over ${t}…`);
        transports.push(await runTransport(t, plan, parley));
      }
    }
    console.log('telephony: μ-law and resampling cost, Silero 8 vs 16 kHz…');
    const codec = measureCodecCost(options.codecSeconds);
    const vadRate = await measureVadRate(vadSentences.map((s) => fliteSay(s)));
    const report: TelephonyReport = {
      bench: 'telephony',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      options: { ...options },
      transports,
      codec,
      vad_rate: vadRate,
    };
    const markdown = renderMarkdown(report);
    await publishResults('telephony', report, markdown);
    return report;
  } finally {
    await parley?.stop().catch(() => {}); // best effort: killed with this process anyway
    await webhook?.stop().catch(() => {});
    await redis.close();
  }
}

if (isMain(import.meta.url)) {
  const [flag, target, arg] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else if (flag === '--serve' && target === 'parley') {
    // in a process of its own, so that its CPU (/proc) is Parley's alone: Twilio configured, instant
    // STT and TTS, so that what is left is Parley's own work, the carrier's μ-law and resampling included
    const env = { PARLEY_WORKERS: '1', TWILIO_AUTH_TOKEN: benchAuthToken };
    await serveBenchParley(arg!, env, { speech: instantSpeech() });
  } else await main(process.env['TELEPHONY_BENCH_QUICK'] === '1' ? quick : {});
}
