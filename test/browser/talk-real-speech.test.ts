import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../scripts/build-client.js';
import { Resampler } from '../../src/audio/resampler.js';
import { encodeWav } from '../../src/audio/wav.js';
import { launchChromium } from '../support/browser.js';
import { fliteScript } from '../support/flite-speech.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { espeakTts, pocketsphinxStt, report } from '../support/real-speech.js';
import { TestRedis } from '../support/redis-server.js';
import { talkTestPage } from '../support/talk-page.js';
import { wordErrorRate } from '../support/wer.js';

/**
 * "Talk to the agent" in Chromium on real speech: the fake microphone plays flite saying a
 * request (48 kHz WAV made here), through getUserMedia and the capture worklet into a session
 * whose preset recognises with pocketsphinx; the webhook gets the words, the page shows them.
 */

const said = 'i would like to book a table for two people tonight';
const answer = 'Of course. A table for two tonight.';

let dir: string;
let redis: TestRedis;
let webhook: HttpReceiver;
let p: TestParley;
let pages: Server;
let pageUrl: string;
let browser: Browser;

/** 2 s of silence (the page connects), flite's words, 4 s of silence (the turn ends), at 48 kHz. */
function microphoneWav(path: string): void {
  const speech = fliteScript('slt', 2_000, said, 4_000);
  const resampler = new Resampler(16_000, 48_000);
  const head = resampler.push(speech);
  const tail = resampler.flush();
  const samples = new Int16Array(head.length + tail.length);
  samples.set(head);
  samples.set(tail, head.length);
  writeFileSync(path, encodeWav({ samples, sampleRate: 48_000 }));
}

beforeAll(async () => {
  await buildClient(); // Parley serves the worklet from the build
  dir = mkdtempSync(join(tmpdir(), 'parley-talk-'));
  const wav = join(dir, 'microphone-48k.wav');
  microphoneWav(wav);
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start(() => ({ body: { response: answer } }));
  p = await startParley(redis);
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'talk real speech', stt: pocketsphinxStt, tts: espeakTts },
  });
  const created = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'Bistro', mode: 'passthrough', webhook_url: webhook.url, preset_id: preset.body.id },
  });
  const agent = created.body as { id: string; name: string; agent_token: string };
  const page = await talkTestPage({
    agent: { id: agent.id, name: agent.name, token: agent.agent_token },
    baseUrl: p.url,
  });
  pages = createServer((req, res) => {
    const [type, body] = req.url === '/talk.js' ? ['text/javascript', page.script] : ['text/html', page.html];
    res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8` }).end(body);
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  pageUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}/`;
  browser = await launchChromium({ fakeAudioWav: `${wav}%noloop` });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => pages?.close(r));
  await p?.close();
  await webhook?.close();
  await redis?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('Talk in Chromium on real speech', () => {
  it('flite through the fake microphone reaches the webhook through pocketsphinx, and the page shows both turns', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(pageUrl);
    await page.getByRole('button', { name: 'Start talking' }).click();

    await webhook.waitFor(1, 45_000);
    const heard = (webhook.requests[0]!.json as { data: { transcript: string } }).data.transcript;
    const wer = wordErrorRate([{ said, heard }]);
    report('Chromium microphone (flite) → pocketsphinx', wer, [{ said, heard }]);
    expect(wer).toBeLessThanOrEqual(0.4);

    const log = page.getByRole('log');
    await log.locator('[data-who="user"]', { hasText: heard }).waitFor({ timeout: 30_000 });
    await log.locator('[data-who="agent"]', { hasText: answer }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'End call' }).click();
    expect(webhook.requests).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
