import { AxeBuilder } from '@axe-core/playwright';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient } from '../../scripts/build-client.js';
import { launchChromium } from '../support/browser.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { talkTestPage } from '../support/talk-page.js';

/**
 * "Talk to the agent" in a real browser: headless Chromium whose fake microphone plays espeak-ng
 * speech (test/fixtures/audio/talk-48k.wav) into the `<Talk>` component on a page of another
 * origin, against a real Parley (real VAD, STT through a local OpenAI-compatible server, a real
 * webhook in passthrough mode, espeak-ng speech back through the playback worklet).
 */

const heard = 'I would like to book a table for two tonight.';
const answer = 'Of course. A table for two tonight.';
const wav = fileURLToPath(new URL('../fixtures/audio/talk-48k.wav', import.meta.url));

let redis: TestRedis;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let p: TestParley;
let pages: Server;
let pageUrl: string;
let browser: Browser;
let agent: { id: string; name: string; agent_token: string };

/** The README's ten-line page, pointed at this Parley and agent. */
async function readmePage(token: string): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const html = /<!-- prettier-ignore -->\n```html\n([\s\S]*?)```/.exec(readme)?.[1];
  if (html === undefined) throw new Error('README has no ten-line page');
  return html.replaceAll('https://voice.example.com', p.url).replaceAll('pat_…', token);
}

beforeAll(async () => {
  await buildClient(); // Parley serves the worklet from the build
  redis = await TestRedis.start();
  audioApi = await OpenAiAudioServer.start({ transcribe: () => heard });
  webhook = await HttpReceiver.start((req) => {
    const transcript = (req.json as { data: { transcript: string } }).data.transcript;
    return { body: { response: transcript === heard ? answer : `You typed: ${transcript}` } };
  });
  p = await startParley(redis, { OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test' });
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: {
      name: 'talk',
      stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
      tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const created = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'Bistro', mode: 'passthrough', webhook_url: webhook.url, preset_id: preset.body.id },
  });
  agent = created.body;
  const page = await talkTestPage({
    agent: { id: agent.id, name: agent.name, token: agent.agent_token },
    baseUrl: p.url,
  });
  const readme = await readmePage(agent.agent_token);
  pages = createServer((req, res) => {
    const [type, body] =
      req.url === '/talk.js'
        ? ['text/javascript', page.script]
        : req.url === '/readme.html'
          ? ['text/html', readme]
          : ['text/html', page.html];
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
  await Promise.all([audioApi?.close(), webhook?.close()]);
  await redis?.close();
});

const playedSeconds = async (page: Page) =>
  Number(await page.locator('[data-played-seconds]').getAttribute('data-played-seconds'));

describe('Talk in Chromium', () => {
  it('speaks through the fake microphone, shows both captions and the latency, plays the answer, takes a typed turn, and stores the conversation with timings', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(pageUrl);
    await page.getByRole('button', { name: 'Start talking' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toContain('Listening');

    // The spoken turn: the user's caption (the STT's transcript), then the agent's, with its latency.
    const log = page.getByRole('log');
    await log.locator('[data-who="user"]', { hasText: heard }).waitFor({ timeout: 30_000 });
    await log.locator('[data-who="agent"]', { hasText: answer }).waitFor({ timeout: 30_000 });
    await expect
      .poll(() => log.locator('[data-who="agent"]').first().textContent(), { timeout: 15_000 })
      .toMatch(/answered in \d+ ms after you stopped speaking/);
    // The answer's audio went through the playback worklet: about its spoken length (espeak: ~2 s).
    await expect.poll(() => playedSeconds(page), { timeout: 20_000 }).toBeGreaterThan(1);
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 20_000 }).toContain('Listening');

    // A typed turn.
    await page.getByLabel('Type a message').fill('a window seat please');
    await page.getByRole('button', { name: 'Send' }).click();
    await log
      .locator('[data-who="agent"]', { hasText: 'You typed: a window seat please' })
      .waitFor({ timeout: 30_000 });
    await expect
      .poll(() => log.locator('[data-who="agent"]').nth(1).textContent(), { timeout: 15_000 })
      .toMatch(/answered in \d+ ms after sending/);

    // No serious accessibility problem in the live component.
    const axe = await new AxeBuilder({ page }).include('section.talk').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

    await page.getByRole('button', { name: 'End call' }).click();
    await page.getByText('Call ended: you ended the call').waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);

    // The microphone reached STT as 16 kHz speech about as long as the phrase (2.8 s): the last,
    // whole utterance (smart endpointing may transcribe a part of it first, at a short pause).
    const stt = audioApi.transcriptions.reduce((a, b) => (b.audio.samples.length > a.audio.samples.length ? b : a));
    expect(stt.audio.sampleRate).toBe(16000);
    expect(stt.audio.samples.length / 16000).toBeGreaterThan(2);

    // Parley stored both turns with their timings.
    const list = await p.request('GET', `/admin/v1/conversations?agent_id=${agent.id}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${list.body.data[0].id}`);
    const messages = conversation.body.messages as {
      role: string;
      text: string;
      timings: Record<string, number> | null;
    }[];
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', heard],
      ['agent', answer],
      ['user', 'a window seat please'],
      ['agent', 'You typed: a window seat please'],
    ]);
    expect(messages[1]!.timings).toMatchObject({
      stt_ms: expect.any(Number),
      response_ms: expect.any(Number),
      first_audio_ms: expect.any(Number),
      end_to_end_ms: expect.any(Number),
    });
    await context.close();
  }, 120_000);

  it("the README's ten-line page talks to the agent", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(pageUrl + 'readme.html');
    await page.getByRole('button', { name: 'Talk to the agent' }).click();
    const captions = page.locator('#captions');
    await captions.getByText(`You: ${heard}`).waitFor({ timeout: 30_000 });
    await captions.getByText(`Agent: ${answer}`).waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
