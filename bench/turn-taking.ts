/**
 * Turn-taking benchmark: today's silence-only endpointing beside the new smart one, in one run, on
 * a scripted corpus spoken by espeak-ng at bench time (complete questions; sentences with thinking
 * pauses; a phone number and an email read with pauses; backchannels and a cough-like noise burst
 * over the agent's answer; real barge-ins), each scenario a WebSocket voice session at real-time
 * pace against a real Parley with fake providers of fixed delays (turn-taking/fake-providers.ts).
 *
 * Each setting is an agent PATCHed through the Admin API (`endpointing_mode`); a setting the
 * server refuses is reported unavailable. The Smart Turn model is a random-weight file with the
 * real architecture (scripts/smart-turn-random-model.py --full, built here), so its cost is real
 * and its answers are not: the smart row sets `smart_turn_threshold` 1, so the model is consulted
 * (and its cost measured) but never ends a turn by itself.
 *
 *   node --import tsx bench/turn-taking.ts          # writes bench/results/turn-taking.{json,md}
 *   TURN_BENCH_QUICK=1 node --import tsx bench/turn-taking.ts   # under a minute
 *   TURN_BENCH_ONLY=email TURN_BENCH_DEBUG=1 …   # only scenarios whose name holds "email"; log every STT call
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Parley } from '../src/parley.js';
import { ProviderRegistry } from '../src/providers/registry.js';
import { ProviderSet } from '../src/providers/speech-providers.js';
import { isStreaming } from '../src/providers/stt.js';
import { smartTurnFile, smartTurnModelId } from '../src/pipeline/turn/smart-turn.js';
import { standInPreset } from './lib/stand-in-preset.js';
import { concatSamples } from '../test/support/pcm.js';
import { TestRedis } from '../test/support/redis-server.js';
import { testModelsDir } from '../test/support/test-models.js';
import { admin, createBenchAgent } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { isMain } from './lib/is-main.js';
import { summarize } from './lib/percentiles.js';
import { machineInfo, publishResults } from './lib/report.js';
import { buildCorpus, corpusVoice, phrasesOf, type Scenario } from './turn-taking/corpus.js';
import { delays, fakeSpeech, startFakeLlm, type SttLog } from './turn-taking/fake-providers.js';
import { renderMarkdown, type SettingReport, type SmartTurnCost, type TurnTakingReport } from './turn-taking/report.js';
import { runScenario, type ScenarioResult } from './turn-taking/session-run.js';
import { runAll } from './turn-taking/run-all.js';

const run = promisify(execFile);

/**
 * Each endpointing setting twice: with the scripted STT (exact words, punctuated, 150 ms) and with
 * the real recogniser (pocketsphinx, streaming: unpunctuated words, decoded while spoken).
 */
const settings: { setting: string; patch: Record<string, unknown>; stt: 'scripted' | 'pocketsphinx' }[] = [
  { setting: 'silence', patch: { endpointing_mode: 'silence' }, stt: 'scripted' },
  { setting: 'smart', patch: { endpointing_mode: 'smart', smart_turn_threshold: 1 }, stt: 'scripted' },
  { setting: 'silence (pocketsphinx)', patch: { endpointing_mode: 'silence' }, stt: 'pocketsphinx' },
  {
    setting: 'smart (pocketsphinx)',
    patch: { endpointing_mode: 'smart', smart_turn_threshold: 1 },
    stt: 'pocketsphinx',
  },
];

/** A MODELS_DIR with the test models linked in and a full-size random Smart Turn file; null if python3-onnx is missing. */
async function benchModelsDir(): Promise<{ dir: string; smartTurn: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-turn-bench-'));
  const models = resolve(await testModelsDir());
  for (const entry of await readdir(models)) {
    await symlink(join(models, entry), join(dir, entry));
  }
  await mkdir(join(dir, smartTurnModelId), { recursive: true });
  const script = new URL('../scripts/smart-turn-random-model.py', import.meta.url).pathname;
  try {
    await run('/usr/bin/python3', [script, '--full', join(dir, smartTurnModelId, smartTurnFile)]);
    return { dir, smartTurn: true };
  } catch (err) {
    console.error(`turn-taking: no Smart Turn model (building it failed: ${(err as Error).message.split('\n')[0]})`);
    return { dir, smartTurn: false };
  }
}

/**
 * Loads every pocketsphinx decoder before the rows run (each is built on first use, ~0.3 s of
 * model load on an idle core), so the rows measure turn-taking, not start-up.
 */
async function warmDecoders(providers: ProviderSet): Promise<void> {
  const stt = providers.stt({ provider: 'pocketsphinx', model: 'en-us', language: null });
  if (!isStreaming(stt)) return;
  const request = { sampleRate: 16_000, model: 'en-us', language: null };
  const streams = [];
  for (let s = stt.openStream(request); s !== null; s = stt.openStream(request)) streams.push(s);
  for (const s of streams) s.write(new Int16Array(8_000));
  await Promise.all(streams.map((s) => s.finish()));
}

/** PATCHes an agent's settings; the server's refusal, or null when it took them. */
async function patchAgent(url: string, id: string, patch: Record<string, unknown>): Promise<string | null> {
  try {
    await admin(url, 'PATCH', `/admin/v1/agents/${id}`, patch);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

async function runSetting(
  parley: Parley,
  url: string,
  spec: (typeof settings)[number],
  scenarios: Scenario[],
  quick: boolean,
): Promise<SettingReport> {
  // The scripted recogniser unless the setting names the real one (the built-in preset would be
  // pocketsphinx wherever it is installed).
  const name = `Turn bench ${spec.setting}`;
  const preset = {
    ...standInPreset,
    name,
    ...(spec.stt === 'pocketsphinx' ? { stt: { provider: 'pocketsphinx', model: 'en-us', language: null } } : {}),
  };
  const settings = { name, mode: 'enhanced', system_prompt: 'Answer briefly.', greeting: null };
  const agent = await createBenchAgent(url, settings, preset);
  let note: string | null = null;
  const refused = await patchAgent(url, agent.id, spec.patch);
  if (refused !== null) {
    const { smart_turn_threshold: threshold, ...withoutThreshold } = spec.patch;
    if (spec.setting === 'silence') {
      note = 'the server does not know `endpointing_mode`: ran with its defaults, which are silence-only endpointing';
    } else if (threshold !== undefined && (await patchAgent(url, agent.id, withoutThreshold)) === null) {
      note = `the server refused \`smart_turn_threshold\` ${String(threshold)} (${refused}): ran at its default threshold, so the random-weight model's answers count`;
    } else {
      return {
        setting: spec.setting,
        patch: spec.patch,
        unavailable: `the server refused ${JSON.stringify(spec.patch)}: ${refused}`,
        note: null,
        results: [],
        smart_turn_checks: 0,
        smart_turn_cpu_ms_per_check: null,
      };
    }
  }
  const before = parley.services.endOfTurnModel?.stats();
  // the real recogniser's rows keep to what its decoders serve in real time on this box (README:
  // Benchmarks, bench/stt): more speakers at once measure its queue, not the turn-taking
  const limit = spec.stt === 'pocketsphinx' ? 3 : quick ? scenarios.length : 6;
  const results: ScenarioResult[] = await runAll(scenarios, limit, 150, (s) => runScenario(url, agent.agent_token, s));
  const after = parley.services.endOfTurnModel?.stats();
  const checks = before !== undefined && after !== undefined ? after.checks - before.checks : 0;
  return {
    setting: spec.setting,
    patch: spec.patch,
    unavailable: null,
    note,
    results,
    smart_turn_checks: checks,
    smart_turn_cpu_ms_per_check: checks > 0 ? (after!.cpuMs - before!.cpuMs) / checks : null,
  };
}

/** The model's cost measured directly: checks on the corpus' utterances, one after another. */
async function measureSmartTurn(parley: Parley, scenarios: Scenario[], count: number): Promise<SmartTurnCost | null> {
  const model = parley.services.endOfTurnModel;
  if (model === null) return null;
  const audios = scenarios.map((s) => {
    const parts = s.utterance.map((p) =>
      'phrase' in p ? p.phrase.samples : new Int16Array((p.pauseMs * 16_000) / 1000),
    );
    return concatSamples(parts);
  });
  await model.check(audios[0]!); // warm
  const before = model.stats();
  const wall: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await model.check(audios[i % audios.length]!);
    wall.push(performance.now() - t0);
  }
  const after = model.stats();
  const n = after.checks - before.checks;
  return {
    model: 'random weights, real architecture (float32, Whisper-tiny encoder)',
    checks: n,
    wall: summarize(wall),
    features_ms_mean: (after.featuresMs - before.featuresMs) / n,
    inference_ms_mean: (after.inferenceMs - before.inferenceMs) / n,
    cpu_ms_per_check: (after.cpuMs - before.cpuMs) / n,
  };
}

export async function main(quick: boolean): Promise<TurnTakingReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  console.log(`turn-taking: building the corpus with ${corpusVoice} (${quick ? 'quick' : 'full'})…`);
  const baseScenarios = await buildCorpus(quick);
  const only = process.env['TURN_BENCH_ONLY'];
  const chosen = only === undefined ? baseScenarios : baseScenarios.filter((s) => s.name.includes(only));
  const scenarios = quick ? chosen : [...chosen, ...chosen];
  const models = await benchModelsDir();
  const redis = await TestRedis.start({ external: false, persistence: false });
  const llm = await startFakeLlm();
  const sttLog: SttLog = { calls: 0, unrecognised: 0 };
  let parley: Parley | undefined;
  let real: ProviderSet | undefined;
  try {
    const config = await benchConfig(redis.url, {
      MODELS_DIR: models.dir,
      // The corpus' pauses are digital zeros: the silence floor would skip the model there and keep
      // its state from the last speech, which makes onsets look faster than on a real (noisy) line.
      PARLEY_VAD_SILENCE_FLOOR_DBFS: 'off',
      // one decoder thread per core for the real recogniser's rows
      PARLEY_POCKETSPHINX_THREADS: '2',
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: 'sk-bench',
    });
    const fake = fakeSpeech(phrasesOf(scenarios), sttLog);
    real = new ProviderSet(config, new ProviderRegistry(config));
    const providers = real;
    let url: string;
    ({ parley, url } = await openBenchParley(config, {
      speech: {
        stt: (s) => (s.provider === 'pocketsphinx' ? providers.stt(s) : fake.stt(s)),
        tts: (s) => fake.tts(s),
      },
    }));
    await warmDecoders(providers);
    const rows: SettingReport[] = [];
    for (const spec of settings) {
      console.log(`turn-taking: ${spec.setting}, ${scenarios.length} scenarios at real-time pace…`);
      rows.push(await runSetting(parley, url, spec, scenarios, quick));
    }
    console.log('turn-taking: Smart Turn cost…');
    const smartTurn = await measureSmartTurn(parley, baseScenarios, quick ? 10 : 40);
    if (sttLog.unrecognised > 0)
      console.warn(`turn-taking: the STT did not recognise speech ${sttLog.unrecognised} times`);
    const report: TurnTakingReport = {
      bench: 'turn-taking',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      quick,
      corpus_voice: corpusVoice,
      delays,
      settings: rows,
      smart_turn: smartTurn,
    };
    const markdown = renderMarkdown(report);
    await publishResults('turn-taking', report, markdown);
    return report;
  } finally {
    await parley?.close().catch((err: unknown) => console.error('turn-taking: close failed', err));
    await real?.close();
    await llm.close();
    await redis.close();
    await rm(models.dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main(process.env['TURN_BENCH_QUICK'] === '1');
