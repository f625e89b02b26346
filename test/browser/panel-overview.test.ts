import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { buildPanelForTests, launchChromium, screenshot, signInPanel } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The overview and Sessions pages agree with what happened (issue 30, item 7): a chat session
 * whose message failed is not live, a voice session that never connected has no duration, and
 * the overview appears in one piece after one loading state. Real Parley, Redis, webhook, Chromium.
 */

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageProblems: string[] = [];

beforeAll(async () => {
  [redis, webhook, browser] = await Promise.all([
    TestRedis.start(),
    HttpReceiver.start(() => ({ status: 500, body: { oops: true } })),
    launchChromium(),
    buildPanelForTests(),
  ]);
  // A short connect window, swept often, so a voice session nobody connects to ends quickly.
  p = await startParley(redis, { PARLEY_VOICE_CONNECT_WINDOW_MS: '500', PARLEY_SESSION_SWEEP_INTERVAL_MS: '100' });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) pageProblems.push(msg.text());
  });
  page.on('pageerror', (err) => pageProblems.push(err.message));
  await signInPanel(page, p.url, testAdminKey);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await p?.close();
  await webhook?.close();
  await redis?.close();
});

const open = async (path: string) => {
  await page.goto(`${p.url}/home${path}`);
  await page.locator('h1').waitFor();
  await page.waitForLoadState('networkidle');
};

const sessionRow = (text: string) => page.locator('tbody tr', { hasText: text });
/** The Duration cell of a Sessions table row (the 7th column). */
const durationOf = (text: string) => sessionRow(text).locator('td').nth(6).innerText();

describe('the overview and the Sessions page', () => {
  it('do not count a chat session whose message failed as live', async () => {
    const agent = await createAgent(p, { name: 'Desk', mode: 'passthrough', webhook_url: webhook.url });
    const res = await fetch(`${p.url}/sdk/v1/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent_token: agent.agent_token, message: 'hello', user_id: 'failed-chat' }),
    });
    expect(res.status).toBe(502);

    await open('/');
    const card = page.locator('.card', { hasText: 'Live sessions' });
    expect(await card.locator('.card-value').innerText()).toBe('0');
    const errors = page.locator('tr', { hasText: /^error/ });
    expect(await errors.locator('td').nth(1).innerText()).toBe('1');

    await card.getByRole('link').click();
    await page.waitForURL(/\/home\/sessions\?status=active$/);
    await page.getByText('No sessions match.').waitFor();
    await open('/sessions');
    const row = sessionRow('failed-chat');
    expect(await row.innerText()).toMatch(/ended[\s\S]*error/);
    expect(await durationOf('failed-chat')).toMatch(/^\d+ s$/); // it ran, if briefly
  });

  it('show no duration for a voice session that never connected', async () => {
    const agent = await createAgent(p, { name: 'Phone', mode: 'passthrough', webhook_url: webhook.url });
    const grant = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: agent.agent_token, transport: 'websocket', user_id: 'nobody-came' },
    });
    expect(grant.status).toBe(201);
    await eventually(
      () => p.request('GET', `/admin/v1/sessions/${grant.body.session_id}`),
      (s) => s.body.end_reason === 'never_connected',
      { what: 'the session to end never_connected' },
    );
    await open('/sessions');
    expect(await sessionRow('nobody-came').innerText()).toContain('never connected');
    expect(await durationOf('nobody-came')).toBe('—');
  });

  it('loads the overview in one go: one loading state, then every section at once', async () => {
    // Every state the page's main area goes through, recorded in the page as it renders.
    await page.addInitScript(`
      window.overviewStates = [];
      new MutationObserver(() => {
        const main = document.querySelector('main');
        if (main === null) return;
        window.overviewStates.push({
          loading: [...main.querySelectorAll('.loading')].map((e) => e.textContent),
          headings: [...main.querySelectorAll('h2')].map((e) => e.textContent),
        });
      }).observe(document, { childList: true, subtree: true, characterData: true });
    `);
    // The provider probe answers last, as on a server whose providers are slow to check.
    await page.route('**/health/providers', async (route) => {
      await new Promise((r) => setTimeout(r, 1_000));
      await route.continue();
    });
    try {
      await page.goto(`${p.url}/home`);
      await page.getByRole('heading', { name: 'Server', exact: true }).waitFor();
    } finally {
      await page.unroute('**/health/providers');
    }
    const states = (await page.evaluate('window.overviewStates')) as { loading: string[]; headings: string[] }[];
    const shown = states.filter((s) => s.headings.length > 0);
    expect(shown.length).toBeGreaterThan(0);
    for (const s of shown) expect(s.headings).toEqual(expect.arrayContaining(['Readiness', 'Latency', 'Server']));
    expect([...new Set(states.flatMap((s) => s.loading))]).toEqual(['Loading the overview…']);
  });

  it('says a readiness problem voice and chat share once', async () => {
    const agent = await createAgent(p, { name: 'No hook', mode: 'passthrough', webhook_url: null });
    await open(`/agents/${agent.id}`);
    const shared = page.locator('dd[data-readiness="voice chat"]');
    expect(await shared.innerText()).toContain('passthrough mode needs a webhook_url');
    expect(await page.getByText('passthrough mode needs a webhook_url').count()).toBe(1);
    await open('/');
    const line = page.locator('ul.not-ready li', { hasText: 'No hook' });
    expect(await line.innerText()).toMatch(/Voice and chat not ready \(passthrough mode needs a webhook_url/);
    expect((await line.innerText()).match(/webhook_url/g)).toHaveLength(1);
  });

  it('has no serious accessibility violations on the overview and Sessions, at desktop and phone width', async () => {
    for (const [width, height, device] of [
      [1280, 800, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path] of [
        ['overview', '/'],
        ['sessions', '/sessions'],
      ] as const) {
        await open(path);
        await page.getByRole('heading', { name: name === 'overview' ? 'Server' : 'Sessions', exact: true }).waitFor();
        const scan = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
        const serious = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(serious.map((v) => `${name} (${device}): ${v.id}`)).toEqual([]);
        await screenshot(page, `overview-load-${name}-${device}`);
      }
    }
    expect(pageProblems).toEqual([]);
  }, 60_000);
});
