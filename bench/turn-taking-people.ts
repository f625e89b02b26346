/**
 * Turn-taking on people's voices: the prompts of test/fixtures/audio/people-prompts.json (a person
 * reading IVR prompts, Debian's asterisk-core-sounds-en-wav, 8 kHz upsampled to 16 kHz as a phone
 * line is) streamed at real-time pace into WebSocket sessions of a real Parley with the default
 * install's engines: pocketsphinx hears, a passthrough webhook (a local HTTP server) answers at
 * once, flite speaks. Rows, in one run: the scripted STT (exact punctuated words after 150 ms, the
 * same audio) as the reference; pocketsphinx with the statement-end rule off (words only: the
 * default before it); with the language model only; and the default (language model and pitch).
 *
 * Scenarios: `complete` prompts (one sentence; the wait from the end of speech to the first audio);
 * `cut` prompts (one sentence cut at a word gap inside a clause, a pause of 300–900 ms in between:
 * answered once, or split); `multi` prompts (2–3 sentences with the speaker's own pauses: answered once).
 *
 *   node --import tsx bench/turn-taking-people.ts        # ~12 min; writes bench/results/turn-taking-people.{json,md}
 *   PEOPLE_BENCH_QUICK=1 node --import tsx bench/turn-taking-people.ts   # ~5 min
 *   PEOPLE_BENCH_SESSIONS=3 …   # callers at once (default 2)
 *   PEOPLE_BENCH_ROWS=default,off …   # only the rows whose names hold these words
 *   PEOPLE_BENCH_LOG=debug …   # Parley's log at that level on stdout (the statement-end verdicts are at debug)
 */
import type { Parley } from '../src/parley.js';
import { ProviderRegistry } from '../src/providers/registry.js';
import { ProviderSet } from '../src/providers/speech-providers.js';
import { TestRedis } from '../test/support/redis-server.js';
import { peoplePrompts, promptHalves, promptSpeech } from '../test/support/people-speech.js';
import { createBenchAgent } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { isMain } from './lib/is-main.js';
import { startOkWebhook } from './lib/webhook-server.js';
import { machineInfo, publishResults } from './lib/report.js';
import type { Scenario } from './turn-taking/corpus.js';
import { fakeSpeech, type SttLog } from './turn-taking/fake-providers.js';
import { renderPeople, type PeopleRow } from './turn-taking/people-report.js';
import { runScenario } from './turn-taking/session-run.js';
import { runAll } from './turn-taking/run-all.js';

const pocketsphinx = { provider: 'pocketsphinx', model: 'en-us', language: null };
const scripted = { provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null };
const flite = { provider: 'flite', model: 'flite', voice: 'slt' };

/** Callers speaking at once (PEOPLE_BENCH_SESSIONS, default 2). */
const sessions = Number(process.env['PEOPLE_BENCH_SESSIONS'] ?? 2);

const rows: { row: string; stt: typeof pocketsphinx | typeof scripted; patch: Record<string, unknown> }[] = [
  { row: 'scripted STT (punctuated)', stt: scripted, patch: {} },
  { row: 'pocketsphinx, words only (rule off)', stt: pocketsphinx, patch: { statement_end_threshold: null } },
  { row: 'pocketsphinx, language model only', stt: pocketsphinx, patch: { statement_end_pitch: false } },
  { row: 'pocketsphinx (default: language model and pitch)', stt: pocketsphinx, patch: {} },
];

/** The scenarios: every chosen prompt (quick: a third of them), cut prompts with pauses of 300–900 ms. */
function scenarios(quick: boolean): Scenario[] {
  const take = <T>(list: T[]) => (quick ? list.filter((_, i) => i % 3 === 0) : list);
  const pauses = [300, 500, 700, 900];
  return [
    ...take(peoplePrompts('complete')).map((p): Scenario => ({
      name: p.name,
      kind: p.text.endsWith('?') ? 'question' : 'statement',
      utterance: [{ phrase: promptSpeech(p) }],
    })),
    ...take(peoplePrompts('cut')).map((p, i): Scenario => {
      const [first, second] = promptHalves(p);
      const pauseMs = pauses[i % pauses.length]!;
      return {
        name: `${p.name} (${pauseMs} ms)`,
        kind: 'pause',
        utterance: [{ phrase: first }, { pauseMs }, { phrase: second }],
      };
    }),
    ...take(peoplePrompts('multi')).map((p): Scenario => ({
      name: p.name,
      kind: 'multi',
      utterance: [{ phrase: promptSpeech(p) }],
    })),
  ];
}

async function runRow(
  url: string,
  webhookUrl: string,
  spec: (typeof rows)[number],
  list: Scenario[],
): Promise<PeopleRow> {
  const settings = { name: spec.row, webhook_url: webhookUrl, greeting: null, ...spec.patch };
  const agent = await createBenchAgent(url, settings, { name: spec.row, stt: spec.stt, tts: flite });
  // two callers at once: the recogniser keeps up with real time on two cores, so the waits are endpointing's
  const results = await runAll(list, sessions, 150, (s) => runScenario(url, agent.agent_token, s));
  return { row: spec.row, patch: spec.patch, results };
}

export async function main(quick: boolean): Promise<void> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const list = scenarios(quick);
  const redis = await TestRedis.start({ external: false, persistence: false });
  const webhook = await startOkWebhook('Okay, one moment please.');
  const sttLog: SttLog = { calls: 0, unrecognised: 0 };
  let parley: Parley | undefined;
  let real: ProviderSet | undefined;
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  try {
    // the default install's models (MODELS_DIR's default, ./models), not the random-weight test ones
    const config = await benchConfig(redis.url, {
      MODELS_DIR: undefined,
      PARLEY_POCKETSPHINX_THREADS: '2',
      PARLEY_LOG_LEVEL: process.env['PEOPLE_BENCH_LOG'] ?? 'silent',
      PARLEY_LOG_FORMAT: 'json',
    });
    const fake = fakeSpeech(
      list.flatMap((s) => s.utterance.flatMap((p) => ('phrase' in p ? [p.phrase] : []))),
      sttLog,
    );
    real = new ProviderSet(config, new ProviderRegistry(config));
    const providers = real;
    let url: string;
    ({ parley, url } = await openBenchParley(config, {
      speech: {
        stt: (s) => (s.provider === 'pocketsphinx' ? providers.stt(s) : fake.stt(s)),
        tts: (s) => providers.tts(s),
      },
    }));
    const report: PeopleRow[] = [];
    // PEOPLE_BENCH_ROWS=default,off runs only the rows whose names hold one of those words
    const only = process.env['PEOPLE_BENCH_ROWS']?.split(',');
    for (const spec of rows.filter((r) => only === undefined || only.some((w) => r.row.includes(w)))) {
      console.log(`turn-taking-people: ${spec.row}, ${list.length} scenarios at real-time pace…`);
      report.push(await runRow(url, webhook.url, spec, list));
    }
    const cpu = process.cpuUsage(cpuStart);
    const wallS = (performance.now() - wallStart) / 1000;
    const result = {
      bench: 'turn-taking-people' as const,
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      quick,
      // Parley and the load generator share this process: their CPU together, in cores
      process_cores: (cpu.user + cpu.system) / 1e6 / wallS,
      sessions,
      rows: report,
    };
    const markdown = renderPeople(result);
    await publishResults('turn-taking-people', result, markdown);
  } finally {
    await parley?.close().catch((err: unknown) => console.error('turn-taking-people: close failed', err));
    await real?.close();
    await webhook.close();
    await redis.close();
  }
}

if (isMain(import.meta.url)) await main(process.env['PEOPLE_BENCH_QUICK'] === '1');
