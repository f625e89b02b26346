import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { buildPanelForTests, launchChromium, screenshot, signInPanel } from '../support/browser.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The agent page's Tests section in headless Chromium: cases listed and added (a bad one refused
 * in the server's words), a finished run's results per case and expectation with a link to the
 * conversation; no serious accessibility violations, nothing wider than a phone.
 */

let redis: TestRedis;
let p: TestParley;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [redis, browser] = await Promise.all([TestRedis.start(), launchChromium(), buildPanelForTests()]);
  p = await startParley(redis);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await p?.close();
  await redis?.close();
});

describe('the Tests section of an agent', () => {
  it('lists cases and run results, adds a case, and refuses a bad one', async () => {
    const agent = await createAgent(p, { name: 'Desk' });
    const created = await p.request('POST', `/admin/v1/agents/${agent.id}/tests`, {
      body: { name: 'greets', turns: [{ say: 'hello' }], expect: [{ type: 'says', phrase: 'welcome' }] },
    });
    // A finished run as the runner stores it (the voice path is covered by test/integration/agent-tests.test.ts).
    const run = await p.parley.store.agentTests.createRun(agent.id, [created.body.id]);
    run.status = 'failed';
    run.results.push({
      case_id: created.body.id,
      name: 'greets',
      status: 'failed',
      session_id: 'ses_01jd3n6v8m0000000000000000',
      conversation_id: 'cnv_01jd3n6v8m0000000000000000',
      error: null,
      waits_ms: [900],
      expectations: [{ type: 'says', passed: false, detail: 'phrase "welcome" not in the answers: "Hi."' }],
    });
    await p.parley.store.agentTests.saveRun(run);

    await signInPanel(page, p.url, testAdminKey);
    await page.goto(`${p.url}/home/agents/${agent.id}`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Tests' }) });
    await section.getByText('greets').first().waitFor();
    await expect.poll(() => section.locator('[data-test-run]').innerText()).toContain('phrase "welcome" not in');
    expect(await section.getByRole('link', { name: 'Conversation' }).getAttribute('href')).toContain(
      '/conversations/cnv_01jd3n6v8m0000000000000000',
    );

    const editor = section.getByLabel('Add a test case (JSON)');
    await editor.fill(JSON.stringify({ name: 'bad', turns: [], expect: [{ type: 'says', pattern: '(' }] }));
    await section.getByRole('button', { name: 'Add the test case' }).click();
    await expect.poll(() => section.getByRole('alert').innerText()).toMatch(/regular expression/);
    await editor.fill(JSON.stringify({ name: 'says bye', turns: [{ say: 'bye' }], expect: [{ type: 'call_ended' }] }));
    await section.getByRole('button', { name: 'Add the test case' }).click();
    await section.locator('[data-test-case="says bye"]').waitFor();

    for (const [width, height, device] of [
      [1280, 800, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForLoadState('networkidle');
      const scan = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
      const serious = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${device}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual(
        [],
      );
      const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
        .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
      expect(wide, `the agent page is wider than a phone`).toEqual([]);
      await screenshot(page, `agent-tests-${device}`);
    }
  }, 120_000);
});
