import type { Browser, Page } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPanelForTests, launchChromium, screenshot, signInPanel } from '../support/browser.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * The conversation view plays the call's recording (fetched with the admin key, played from an
 * object URL) and seeks to a message when it is asked to play from there. It asks for the
 * recording only when the conversation's record says it has one: the console stays clean.
 */

let redis: TestRedis;
let p: TestParley;
let browser: Browser;
let page: Page;
let dir: string;
/** Every console error, failed request and error response of the page, and the recordings it asked for. */
const problems: string[] = [];
const recordingRequests: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-panel-recording-'));
  [redis, browser] = await Promise.all([TestRedis.start(), launchChromium(), buildPanelForTests()]);
  p = await startParley(redis, { PARLEY_DATA_DIR: dir });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
  });
  page.on('request', (req) => {
    if (req.url().endsWith('/recording')) recordingRequests.push(req.url());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await p?.close();
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A recorded call: the agent's greeting over a second of quiet caller audio, then hang-up. */
async function recordedCall(settings: Record<string, unknown>): Promise<string> {
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'recorded', greeting: 'Hello there, this call is recorded', ...settings },
  });
  const session = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  const client = await VoiceClient.connect(session.body.connection_url, session.body.connection_token);
  await client.untilEvent('ready');
  await client.untilEvent('audio_end');
  await client.stream({ samples: new Int16Array(16_000), sampleRate: 16_000 });
  client.sendJson({ type: 'end' });
  await client.untilEvent('ended');
  client.close();
  const read = await p.request('GET', `/admin/v1/sessions/${session.body.session_id as string}`);
  return read.body.conversation_id as string;
}

describe('the conversation view with a recording', () => {
  it('plays the recording and seeks to a message', async () => {
    const conversationId = await recordedCall({ recording: 'on' });
    await signInPanel(page, p.url, testAdminKey);
    await page.goto(`${p.url}/home/conversations/${conversationId}`);
    const player = page.getByRole('region', { name: 'Call recording' }).locator('audio');
    await player.waitFor();
    expect(await player.getAttribute('src')).toMatch(/^blob:/);
    // Chromium decodes the WAV: about 2 s of call
    await expect
      .poll(() => player.evaluate((a) => (a as unknown as { duration: number }).duration), { timeout: 10_000 })
      .toBeGreaterThan(1);
    await page.getByRole('button', { name: 'Play the recording from this message' }).first().click();
    const at = await player.evaluate((a) => (a as unknown as { currentTime: number }).currentTime);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(2);
    await screenshot(page, 'conversation-recording');
  }, 60_000);

  it('shows no player and no play buttons for a call that was not recorded, and never asks for its recording', async () => {
    const conversationId = await recordedCall({});
    problems.length = 0;
    recordingRequests.length = 0;
    await page.goto(`${p.url}/home/conversations/${conversationId}`);
    await page.getByRole('heading', { level: 1, name: 'Conversation' }).waitFor();
    await page.locator('.transcript').waitFor();
    expect(await page.getByRole('region', { name: 'Call recording' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Play the recording from this message' }).count()).toBe(0);
    await page.waitForLoadState('networkidle');
    // the list and back again: every view of it stays clean
    await page.goto(`${p.url}/home/conversations`);
    await page.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
    await page.waitForLoadState('networkidle'); // leaving a view mid-request aborts it (not a failure)
    await page.goto(`${p.url}/home/conversations/${conversationId}`);
    await page.locator('.transcript').waitFor();
    await page.waitForLoadState('networkidle');
    expect(problems).toEqual([]);
    expect(recordingRequests).toEqual([]);
  }, 60_000);

  it('a recorded call: its recording asked for once, with a clean console', async () => {
    const conversationId = await recordedCall({ recording: 'caller_only' });
    problems.length = 0;
    recordingRequests.length = 0;
    await page.goto(`${p.url}/home/conversations/${conversationId}`);
    await page.getByRole('region', { name: 'Call recording' }).locator('audio').waitFor();
    await page.waitForLoadState('networkidle');
    expect(problems).toEqual([]);
    expect(recordingRequests).toEqual([`${p.url}/admin/v1/conversations/${conversationId}/recording`]);
  }, 60_000);
});
