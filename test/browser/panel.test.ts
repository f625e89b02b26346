import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPanelForTests, launchChromium, screenshot, signInPanel } from '../support/browser.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The /home panel in headless Chromium against a real Parley (real Redis, a real webhook server,
 * the random-weight embedder). The tests run in order and build on each other: sign in, create a
 * preset and an agent, chat, upload, resolve, then scan and photograph the views.
 */

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Browser console errors and CSP violations: none are expected. */
const pageProblems: string[] = [];
let agentId = '';

beforeAll(async () => {
  [redis, webhook, browser] = await Promise.all([
    TestRedis.start(),
    HttpReceiver.start((req) => {
      const message = (req.json as { data?: { transcript?: string } }).data?.transcript ?? '';
      return message.includes('fail')
        ? { status: 500, body: { oops: true } }
        : { status: 200, body: { response: `You said: ${message}` } };
    }),
    launchChromium(),
    buildPanelForTests(),
  ]);
  p = await startParley(redis, { PARLEY_EMBEDDING_MODEL: 'minilm-l6-random' });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  // Failed loads are checked by response (401 for the wrong key, 404/503 for LiveKit are expected).
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) pageProblems.push(msg.text());
  });
  page.on('response', (res) => {
    if ((res.status() === 400 && res.request().method() === 'GET') || res.status() >= 500)
      pageProblems.push(`${res.status()} ${res.url()}`);
  });
  page.on('pageerror', (err) => pageProblems.push(err.message));
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await p?.close();
  await webhook?.close();
  await redis?.close();
});

const nav = (section: string) => page.getByRole('navigation').getByRole('link', { name: section }).click();

describe('the /home panel', () => {
  it('is served with a strict CSP, hashed immutable assets and a no-cache index', async () => {
    const index = await fetch(`${p.url}/home/agents/whatever`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe');
    const html = await index.text();
    expect(html).not.toMatch(/<script>|<style>| style=/);
    const script = /src="(\/home\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${p.url}${script}`, { headers: { 'Accept-Encoding': 'br' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    const missing = await fetch(`${p.url}/home/assets/nope-123.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const post = await fetch(`${p.url}/home`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('refuses a wrong key in words, then signs in with the right one', async () => {
    await page.goto(`${p.url}/home`);
    await page.getByLabel('Admin API key').fill('not-the-admin-key-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Wrong admin API key');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);

    await signInPanel(page, p.url, testAdminKey);
    expect(page.url()).not.toContain(testAdminKey);
    expect(await page.content()).not.toContain(testAdminKey);
    await page.getByText('Live sessions').waitFor();
  });

  it('creates a preset and an agent', async () => {
    await nav('Presets');
    await page.getByRole('link', { name: 'New preset' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser preset');
    // The OpenAI-compatible LLM is not configured in tests: the picker says so.
    await expect
      .poll(() => page.locator('fieldset', { hasText: 'Language model' }).innerText())
      .toContain('not configured here');
    await page.getByRole('button', { name: 'Create preset' }).click();
    await page.waitForURL(/\/home\/presets\/pre_/);
    await page.getByRole('button', { name: 'Save preset' }).waitFor();
    // Embeddings left at "Deployment default": the preset's section stays null, as the API's default.
    const presetId = /presets\/(pre_[a-z0-9]+)/.exec(page.url())![1]!;
    expect((await p.request('GET', `/admin/v1/presets/${presetId}`)).body.embeddings).toBeNull();

    await nav('Agents');
    await page.getByLabel('Name', { exact: true }).fill('Browser agent');
    await page.getByLabel('Mode').selectOption('passthrough');
    await page.getByLabel('Preset').selectOption({ label: 'Browser preset' });
    await page.getByLabel('Webhook URL').fill(webhook.url);
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(/\/home\/agents\/agt_/);
    agentId = /agents\/(agt_[a-z0-9]+)/.exec(page.url())![1]!;
    await page.getByRole('heading', { name: 'Browser agent' }).waitFor();

    // Every setting has a control with help text from /openapi.json; a bad value is refused in words.
    await page.getByLabel('Min silence (ms)').fill('5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('body.min_silence_ms');
    await page.getByLabel('Min silence (ms)').fill('600');
    await page.getByLabel('RAG enabled').check();
    // A failed turn's fallback line, emptied: such turns stay silent.
    expect(await page.getByLabel('Fallback line').inputValue()).toBe("Sorry, I can't answer right now.");
    await page.getByLabel('Fallback line').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const agent = await p.request('GET', `/admin/v1/agents/${agentId}`);
    expect(agent.body).toMatchObject({
      min_silence_ms: 600,
      rag_enabled: true,
      mode: 'passthrough',
      fallback_line: '',
    });
    expect(await page.getByText('Speech probability above which').count()).toBe(1);
  });

  it('shows a chat sent through /sdk/v1/chat in the conversation view, with its timing bar', async () => {
    const { body: agent } = await p.request('GET', `/admin/v1/agents/${agentId}`);
    const res = await fetch(`${p.url}/sdk/v1/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent_token: agent.agent_token, message: 'hello from the browser test', user_id: 'ada' }),
    });
    expect(res.status).toBe(200);

    await nav('Conversations');
    await page.getByLabel('Agent').selectOption(agentId);
    await page.getByLabel('User id').fill('ada');
    await page.getByLabel('User id').press('Enter');
    await page.locator('tbody tr').first().getByRole('link').first().click();
    await page.waitForURL(/\/home\/conversations\/cnv_/);
    await page.getByText('hello from the browser test', { exact: true }).waitFor();
    await page.getByText('You said: hello from the browser test').waitFor();
    const bar = page.locator('.timing .bar').first();
    expect(await bar.getAttribute('aria-label')).toMatch(/response \d+ ms/);
  });

  it('uploads a document with progress and sees it become ready, then searches it', async () => {
    await page.goto(`${p.url}/home/agents/${agentId}`);
    await page.getByLabel('Upload a document').setInputFiles(fixture('rag/corpus/tea.md'));
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(/Uploaded tea\.md/).waitFor();
    const row = page.locator('tr[data-document="tea.md"]');
    await expect.poll(() => row.innerText(), { timeout: 30_000, interval: 250 }).toContain('ready');
    await page.getByLabel('Query').fill('tea');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('ol.hits li').first().waitFor();
  }, 60_000);

  it('marks a failed turn in its conversation and resolves its error, from the list and from the turn', async () => {
    const { body: agent } = await p.request('GET', `/admin/v1/agents/${agentId}`);
    const fail = async () => {
      const res = await fetch(`${p.url}/sdk/v1/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent_token: agent.agent_token, message: 'please fail now' }),
      });
      expect(res.status).toBe(502);
      return ((await res.json()) as { error: { details: { session_id: string; error_id: string } } }).error.details;
    };
    await fail();
    const second = await fail();

    await nav('Errors');
    await page.getByLabel('Status').selectOption('open');
    const item = page.locator('li.error-item').last();
    await item.getByRole('button', { name: 'Details' }).click();
    await item.getByLabel('Resolution note (optional)').fill('webhook fixed');
    await item.getByRole('button', { name: 'Resolve' }).click();
    await item.getByText('Resolved.').waitFor();
    expect((await p.request('GET', '/admin/v1/errors?status=open')).body.data).toHaveLength(1);

    const session = await p.request('GET', `/admin/v1/sessions/${second.session_id}`);
    await page.goto(`${p.url}/home/conversations/${session.body.conversation_id}`);
    const turn = page.locator('li.msg-agent');
    await turn.locator('.badge', { hasText: 'failed' }).waitFor();
    await turn.getByRole('link', { name: /Why it failed/ }).click();
    const detail = page.getByRole('region', { name: 'Selected error' });
    await detail.getByRole('heading', { name: `Error ${second.error_id}` }).waitFor();
    await detail.getByRole('button', { name: 'Resolve' }).click();
    await detail.getByText('Resolved.').waitFor();
    expect((await p.request('GET', '/admin/v1/errors?status=open')).body.data).toEqual([]);
  });

  it('regenerates and copies the token, and deletes an agent only after confirming, by keyboard', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: p.url });
    const before = (await p.request('GET', `/admin/v1/agents/${agentId}`)).body.agent_token as string;
    await page.goto(`${p.url}/home/agents/${agentId}`);
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Regenerate' }).click();
    await page.getByText('A new token was issued').waitFor();
    const after = (await p.request('GET', `/admin/v1/agents/${agentId}`)).body.agent_token as string;
    expect(after).not.toBe(before);
    await page.getByRole('button', { name: 'Copy token' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(after);

    const doomed = await p.request('POST', '/admin/v1/agents', { body: { name: 'Doomed agent' } });
    await page.goto(`${p.url}/home/agents/${doomed.body.id}`);
    await page.getByRole('heading', { name: 'Doomed agent' }).waitFor();
    await page.getByRole('button', { name: 'Delete agent' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // Focus starts on Cancel; Escape closes the dialog and nothing is deleted.
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await p.request('GET', `/admin/v1/agents/${doomed.body.id}`)).status).toBe(200);
    await page.keyboard.press('Enter'); // focus is back on "Delete agent"
    await dialog.getByRole('button', { name: 'Delete the agent' }).click();
    await page.waitForURL(/\/home\/agents$/);
    expect((await p.request('GET', `/admin/v1/agents/${doomed.body.id}`)).status).toBe(404);
  });

  it('has no serious accessibility violations at desktop or phone width, and keeps screenshots of both', async () => {
    const { body: conversations } = await p.request('GET', `/admin/v1/conversations?agent_id=${agentId}`);
    const views: [string, string][] = [
      ['overview', '/home'],
      ['agents', '/home/agents'],
      ['agent', `/home/agents/${agentId}`],
      ['presets', '/home/presets'],
      ['preset-editor', '/home/presets/new'],
      ['conversation', `/home/conversations/${conversations.data.at(-1).id}`],
      ['sessions', '/home/sessions'],
      ['errors', '/home/errors'],
      ['livekit', '/home/livekit'],
    ];
    for (const [width, height, device] of [
      [1280, 800, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path] of views) {
        await page.goto(`${p.url}${path}`);
        await page.locator('h1').waitFor();
        await page.waitForLoadState('networkidle');
        // Scanned at both widths: a table that scrolls only on a phone must still take keyboard focus.
        const scan = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
        const serious = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(
          serious.map((v) => `${name} (${device}): ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`),
        ).toEqual([]);
        if (device === 'phone') {
          // Usable at phone width: nothing wider than the screen but scrollable tables.
          // (A string: this code runs in the page, whose DOM types the Node test project does not load.)
          const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
            .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
          expect(wide, `${name} is wider than a phone`).toEqual([]);
        }
        await screenshot(page, `${name}-${device}`);
      }
    }
  }, 120_000);

  it('signs out and forgets the key; a refused key signs out too', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${p.url}/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    const scan = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
    expect(scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await screenshot(page, 'sign-in-desktop');

    // A key the server stops accepting (rotated) signs the tab out, saying why.
    await page.evaluate(`sessionStorage.setItem('parley.adminApiKey', 'a-key-the-server-does-not-know')`);
    await page.goto(`${p.url}/home/agents`);
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('refused the admin key');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(pageProblems).toEqual([]);
  });
});
