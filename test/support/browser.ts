import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildPanel, defaultPanelDir } from '../../scripts/build-panel.js';

/** Debian's Chromium (`.ci/run` installs it when missing); PARLEY_CHROMIUM overrides. */
export const chromiumPath = process.env['PARLEY_CHROMIUM'] ?? '/usr/bin/chromium';

export interface LaunchOptions {
  /**
   * A WAV file Chromium's fake microphone plays (append `%noloop` to play it once); with it,
   * getUserMedia is granted without a prompt.
   */
  fakeAudioWav?: string;
}

/** Headless Chromium driven by playwright-core; no browser download. */
export async function launchChromium(opts: LaunchOptions = {}): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}: apt-get install chromium, or set PARLEY_CHROMIUM`);
  }
  const args = ['--autoplay-policy=no-user-gesture-required', '--disable-gpu', '--disable-dev-shm-usage'];
  if (opts.fakeAudioWav !== undefined) {
    args.push(
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${opts.fakeAudioWav}`,
      '--use-fake-ui-for-media-stream',
    );
  }
  return chromium.launch({ executablePath: chromiumPath, headless: true, args });
}

let built: Promise<unknown> | undefined;

/**
 * Builds the panel from src/panel into dist/panel, once per test process (tests run from source,
 * so a stale or missing build must not be served). Safe while other test files build the same;
 * the same options as `npm run build`, so unchanged sources give the same file names.
 */
export function buildPanelForTests(): Promise<unknown> {
  built ??= buildPanel({ outDir: defaultPanelDir });
  return built;
}

/** Screenshots are kept as test artifacts in test-results/screenshots/ (git-ignored). */
export const screenshotDir = fileURLToPath(new URL('../../test-results/screenshots', import.meta.url));

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs the page in with the admin key through the panel's own form. */
export async function signInPanel(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/home`);
  await page.getByLabel('Admin API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}
