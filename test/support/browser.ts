import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`.ci/run` installs it when missing); PARLEY_CHROMIUM overrides. */
export const chromiumPath = process.env['PARLEY_CHROMIUM'] ?? '/usr/bin/chromium';

export interface LaunchOptions {
  /**
   * A WAV file Chromium's fake microphone plays (append `%noloop` to play it once); with it,
   * getUserMedia is granted without a prompt.
   */
  fakeAudioWav?: string;
}

/** Headless Chromium driven by playwright-core. */
export function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const args = ['--autoplay-policy=no-user-gesture-required'];
  if (options.fakeAudioWav !== undefined) {
    args.push(
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${options.fakeAudioWav}`,
      '--use-fake-ui-for-media-stream',
    );
  }
  return chromium.launch({ executablePath: chromiumPath, headless: true, args });
}
