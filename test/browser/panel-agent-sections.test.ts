import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { buildPanelForTests, launchChromium, screenshot, signInPanel } from '../support/browser.js';
import { startParley, testAdminKey, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * An agent's page in sections an operator jumps between (issue 30, item 7): a navigation that
 * stays at the top and moves focus to the section it names, every setting still there (one form,
 * one Save in a bar that stays in view), axe clean and no wider than a phone. Real Parley and Chromium.
 */

let redis: TestRedis;
let p: TestParley;
let browser: Browser;
let page: Page;
let agentId = '';

const sections = [
  ['Basics', 'agent-basics', 'Basics'],
  ['Voice', 'agent-voice', 'Voice & turn-taking'],
  ['Answering', 'agent-answering', 'Answering (LLM or webhook)'],
  ['Knowledge', 'agent-knowledge', 'Knowledge (RAG)'],
  ['Tools', 'agent-tools', 'Tools'],
  ['Recording', 'agent-recording', 'Recording & analysis'],
  ['Tests', 'agent-tests', 'Tests'],
] as const;

beforeAll(async () => {
  [redis, browser] = await Promise.all([TestRedis.start(), launchChromium(), buildPanelForTests()]);
  p = await startParley(redis);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  agentId = (await createAgent(p, { name: 'Concierge', mode: 'passthrough', webhook_url: 'http://127.0.0.1:9/' })).id;
  await signInPanel(page, p.url, testAdminKey);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await p?.close();
  await redis?.close();
});

const nav = () => page.getByRole('navigation', { name: 'Sections of this agent' });

/** Where an element is in the window: its top and bottom edges in CSS pixels. */
async function edges(selector: string): Promise<{ top: number; bottom: number }> {
  const box = await page.locator(selector).first().boundingBox();
  if (box === null) throw new Error(`${selector} is not shown`);
  return { top: box.y, bottom: box.y + box.height };
}

async function openAgent(fragment = ''): Promise<void> {
  await page.goto(`${p.url}/home/agents/${agentId}${fragment}`);
  await page.getByRole('heading', { level: 1, name: 'Concierge' }).waitFor();
  await page.getByRole('button', { name: 'Save settings' }).waitFor();
}

/** Follows each section's link (last to first, then first to last): its heading takes focus, shown below the navigation. */
async function jumpThroughSections(height: number): Promise<void> {
  for (const [label, id, title] of [...[...sections].reverse(), ...sections]) {
    await nav().getByRole('link', { name: label, exact: true }).click();
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe(`${id}-title`);
    expect(await page.evaluate('document.activeElement.textContent')).toBe(title);
    expect(new URL(page.url()).hash).toBe(`#${id}`);
    const heading = await edges(`#${id}-title`);
    const bar = await edges('.section-nav');
    // The navigation is in view (stuck at the top once scrolled past), the heading below it.
    expect(bar.top, 'the navigation is in view').toBeGreaterThanOrEqual(-1);
    expect(heading.top, `${label}: below the navigation`).toBeGreaterThanOrEqual(bar.bottom - 1);
    expect(heading.bottom, `${label}: in the window`).toBeLessThanOrEqual(height);
  }
}

describe("an agent's page", () => {
  it('has a navigation that jumps to each section and moves focus to its heading', async () => {
    await openAgent();
    const links = await nav().getByRole('link').allInnerTexts();
    expect(links).toEqual(sections.map(([label]) => label));
    await jumpThroughSections(800);
    // Opened at a section's address, the page shows that section.
    await openAgent('#agent-tools');
    await expect.poll(async () => (await edges('#agent-tools-title')).top).toBeLessThan(200);
  });

  it('keeps every setting, each in its section, in one form saved from any of them', async () => {
    const spec = (await (await fetch(`${p.url}/openapi.json`)).json()) as {
      components: { schemas: { AgentPatch: { properties: Record<string, unknown> } } };
    };
    await openAgent();
    for (const name of Object.keys(spec.components.schemas.AgentPatch.properties))
      expect(await page.locator(`[name="${name}"][form="agent-settings"]`).count(), name).toBe(1);
    const inSection = (id: string, label: string) => page.locator(`#${id}`).getByLabel(label, { exact: true });
    expect(await inSection('agent-voice', 'Min silence (ms)').count()).toBe(1);
    expect(await inSection('agent-answering', 'Webhook URL').count()).toBe(1);
    expect(await inSection('agent-knowledge', 'RAG enabled').count()).toBe(1);
    expect(await inSection('agent-tools', 'Tools (JSON)').count()).toBe(1);
    expect(await inSection('agent-recording', 'Analysis (JSON)').count()).toBe(1);
    await page.locator('#agent-knowledge').getByRole('heading', { name: 'Documents', exact: true }).waitFor();
    await page.locator('#agent-tests').getByText('No test cases yet.').waitFor();

    // Changed in two sections, saved at once from the bar, which stays in view while they scroll.
    await nav().getByRole('link', { name: 'Voice', exact: true }).click();
    await inSection('agent-voice', 'Min silence (ms)').fill('700');
    expect((await edges('.save-bar')).bottom).toBeLessThanOrEqual(800);
    await nav().getByRole('link', { name: 'Knowledge', exact: true }).click();
    await inSection('agent-knowledge', 'RAG enabled').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const { body } = await p.request('GET', `/admin/v1/agents/${agentId}`);
    expect(body).toMatchObject({ min_silence_ms: 700, rag_enabled: true });

    // Enter in a field saves too (the field belongs to the form wherever it is); a bad value is refused.
    await inSection('agent-voice', 'Min silence (ms)').fill('5');
    await inSection('agent-voice', 'Min silence (ms)').press('Enter');
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('body.min_silence_ms');
    expect(await inSection('agent-voice', 'Min silence (ms)').getAttribute('aria-invalid')).toBe('true');
  });

  it('has no serious accessibility violations and fits a phone, whose navigation jumps too', async () => {
    for (const [width, height, device] of [
      [1280, 800, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await openAgent();
      await page.waitForLoadState('networkidle');
      const scan = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
      const serious = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${device}: ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual(
        [],
      );
      const wide = await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
        .map((el) => el.tagName.toLowerCase() + '.' + el.className)`);
      expect(wide, 'the agent page is wider than the window').toEqual([]);
      if (device === 'phone') await jumpThroughSections(height);
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, `agent-sections-${device}`);
    }
  }, 60_000);
});
