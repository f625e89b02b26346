import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPanelForTests, launchChromium, signInPanel } from '../support/browser.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The panel as an operator reads it on a phone (issue 20, item 6): names where the API has ids,
 * one count of live sessions, settings that clear and lists edited as lines, keyboard-scrollable
 * tables, plurals, and each agent's readiness. Real Parley, Redis, webhook and Chromium.
 */

let redis: TestRedis;
let p: TestParley;
let webhook: HttpReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageProblems: string[] = [];
const longPresetName = 'A preset whose name is far too long to fit on a phone screen';
let agentId = '';
let presetId = '';

beforeAll(async () => {
  [redis, webhook, browser] = await Promise.all([
    TestRedis.start(),
    HttpReceiver.start((req) => {
      const message = (req.json as { data?: { transcript?: string } }).data?.transcript ?? '';
      return message.includes('fail') ? { status: 500, body: {} } : { status: 200, body: { response: 'Fine.' } };
    }),
    launchChromium(),
    buildPanelForTests(),
  ]);
  p = await startParley(redis, { PARLEY_EMBEDDING_MODEL: 'minilm-l6-random' });
  context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) pageProblems.push(msg.text());
  });
  page.on('pageerror', (err) => pageProblems.push(err.message));

  const preset = await p.request('POST', '/admin/v1/presets', { body: { name: longPresetName } });
  presetId = preset.body.id as string;
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'Front desk', mode: 'passthrough', webhook_url: webhook.url, preset_id: presetId },
  });
  agentId = agent.body.id as string;
  // Three chat sessions (no voice); linus's first message fails, so there is an error with an agent
  // and his session ended (`error`): two are live.
  for (const [user, message] of [
    ['ada', 'hello'],
    ['grace', 'hi'],
    ['linus', 'please fail'],
  ]) {
    await fetch(`${p.url}/sdk/v1/chat`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent_token: agent.body.agent_token, message, user_id: user }),
    });
  }
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

/** The text of the page's main area, where no raw agt_/pre_ id should stand in for a name. */
const mainText = () => page.locator('main').innerText();

describe('the /home panel at phone width', () => {
  it('shows agents and presets by name, cut to fit, linking to them', async () => {
    await open('/agents');
    const preset = page.locator('tbody a.name', { hasText: 'A preset whose name' });
    expect(await preset.getAttribute('href')).toBe(`/home/presets/${presetId}`);
    expect(await preset.getAttribute('title')).toContain(longPresetName);
    // Truncated with an ellipsis: the link is narrower than its text.
    const { width, full } = await preset.evaluate((el) => ({ width: el.clientWidth, full: el.scrollWidth }));
    expect(width).toBeLessThan(full);
    expect(width).toBeLessThanOrEqual(8 * 16);

    await open(`/agents/${agentId}`);
    expect(await page.locator('main a.name').first().getAttribute('href')).toBe(`/home/presets/${presetId}`);

    for (const path of ['/sessions', '/conversations', '/errors']) {
      await open(path);
      const agent = page.locator('main a.name', { hasText: 'Front desk' }).first();
      await agent.waitFor();
      expect(await agent.getAttribute('href')).toBe(`/home/agents/${agentId}`);
      expect(await mainText(), path).not.toMatch(/agt_|pre_/);
      if (path !== '/errors') {
        // The user column stays on screen beside the agent's name, without scrolling the table.
        const user = await page
          .locator('tbody td', { hasText: /^(ada|grace|linus)$/ })
          .first()
          .boundingBox();
        expect(user!.x + user!.width, `${path}: user column`).toBeLessThanOrEqual(390);
      }
    }
    await page.getByRole('button', { name: 'Details' }).first().click();
    await page.locator('.error-detail a.name', { hasText: 'Front desk' }).waitFor();

    const { body: conversations } = await p.request('GET', '/admin/v1/conversations?limit=1');
    await open(`/conversations/${conversations.data[0].id}`);
    await page.locator('main a.name', { hasText: 'Front desk' }).waitFor();
  });

  it('counts on the overview the live sessions that Sessions lists', async () => {
    const { body } = await p.request('GET', '/admin/v1/sessions?status=active&limit=100');
    const live = (body.data as unknown[]).length;
    expect(live).toBe(2); // chat sessions: no voice call is running, and the failed one has ended
    await open('/');
    const card = page.locator('.card', { hasText: 'Live sessions' });
    await expect.poll(() => card.locator('.card-value').innerText()).toBe(String(live));
    await card.getByRole('link').click();
    await page.waitForURL(/\/home\/sessions\?status=active$/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(live);
  });

  it('clears the analysis setting to off and shows off as empty', async () => {
    await p.request('PATCH', `/admin/v1/agents/${agentId}`, { body: { analysis: { enabled: true } } });
    await open(`/agents/${agentId}`);
    const analysis = page.getByLabel('Analysis (JSON)');
    expect(JSON.parse(await analysis.inputValue())).toMatchObject({ enabled: true });
    await analysis.fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await p.request('GET', `/admin/v1/agents/${agentId}`)).body.analysis).toBeNull();
    expect(await analysis.inputValue()).toBe('');
    await open(`/agents/${agentId}`);
    expect(await page.getByLabel('Analysis (JSON)').inputValue()).toBe('');
  });

  it('edits backchannel and stop words one a line, through the API and back', async () => {
    await open(`/agents/${agentId}`);
    const backchannel = page.getByLabel('Backchannel words');
    expect((await backchannel.inputValue()).split('\n')).toContain('uh-huh');
    await backchannel.fill('okay\n  uh-huh \n\nright on\n');
    await page.getByLabel('Stop words').fill('stop\nhold on, please');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const { body: agent } = await p.request('GET', `/admin/v1/agents/${agentId}`);
    expect(agent.backchannel_words).toEqual(['okay', 'uh-huh', 'right on']);
    expect(agent.stop_words).toEqual(['stop', 'hold on, please']);
    await open(`/agents/${agentId}`);
    expect(await page.getByLabel('Backchannel words').inputValue()).toBe('okay\nuh-huh\nright on');
    expect(await page.getByLabel('Stop words').inputValue()).toBe('stop\nhold on, please');
  });

  it('lets the keyboard scroll every wide table, and counts instances in words', async () => {
    await open('/livekit');
    await expect.poll(mainText).toMatch(/\b1 instance,/);
    expect(await mainText()).not.toContain('(s)');
    const workers = page.getByRole('region', { name: 'Agent workers' });
    await workers.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => workers.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    for (const path of ['/agents', '/presets', '/sessions', '/conversations']) {
      await open(path);
      const regions = page.locator('.table-wrap');
      for (let i = 0; i < (await regions.count()); i++) {
        expect(await regions.nth(i).getAttribute('tabindex'), path).toBe('0');
        expect(await regions.nth(i).getAttribute('aria-label'), path).toBeTruthy();
      }
    }
  });

  it("shows an agent's readiness and the built-in preset when the server reports them", async () => {
    const { body: agent } = await p.request('GET', `/admin/v1/agents/${agentId}`);
    const { body: health } = await p.request('GET', '/health/providers');
    await open(`/agents/${agentId}`);
    if (agent.readiness !== undefined) {
      // Voice's lines: its own, and the one it shares with chat (each problem said once).
      const voice = (await page.locator('dd[data-readiness~="voice"]').allInnerTexts()).join('\n');
      expect(voice).toContain(agent.readiness.voice.ready ? 'ready' : 'not ready');
      for (const problem of agent.readiness.voice.problems as string[]) expect(voice).toContain(problem);
    } else {
      expect(await page.getByRole('heading', { name: 'Readiness' }).count()).toBe(0);
    }
    await open('/agents');
    const mode = page.getByLabel('Mode');
    const wanted = health.built_in === undefined || health.built_in.llm.usable ? 'enhanced' : 'passthrough';
    await expect.poll(() => mode.inputValue()).toBe(wanted);
    expect(await page.getByLabel('Preset').inputValue()).toBe('');
    if (health.built_in?.llm.usable === false) {
      // Enhanced without a usable LLM is saved, with the server's warnings, and listed as not ready.
      await page.getByLabel('Name', { exact: true }).fill('Thinker');
      await mode.selectOption('enhanced');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('heading', { name: 'Thinker' }).waitFor();
      await page.getByText(/Saved, with \d+ warnings?:/).waitFor();
      expect(await page.locator('dd[data-readiness~="chat"]').innerText()).toContain('not ready');
    }
    if (health.built_in !== undefined) {
      await open('/');
      const llm = page.locator('dd[data-built-in="llm"]');
      expect(await llm.innerText()).toContain(health.built_in.llm.provider);
      const thinker = page.locator('ul.not-ready li', { hasText: 'Thinker' });
      expect(await thinker.count()).toBe(health.built_in.llm.usable ? 0 : 1);
    }
    expect(pageProblems).toEqual([]);
  });
});
