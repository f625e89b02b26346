import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/** The process's last-resort handlers, in a real process: a session's escaped error stays that session's. */
describe('errors that escape a voice session', () => {
  it("reach the session's scope, whatever hook catches them, and the process lives; any other still crashes it", async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/escaped-errors-child.ts'], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const routed = lines.filter((l) => l['session'] === 'ses_child');
    expect(routed.map((l) => [l['how'], l['message']])).toEqual(
      expect.arrayContaining([
        ['unhandled RxJS error', 'tts failed'],
        ['unhandled promise rejection', 'nobody awaited'],
        ['uncaught exception', 'thrown from a timer'],
        ['unhandled promise rejection', 'caused by a socket event'],
      ]),
    );
    expect(routed).toHaveLength(4);
    expect(lines).toContainEqual({ alive: true });
    expect(lines.at(-1)).toEqual({ crashed: 'uncaught exception', message: 'outside any session' });
    expect(code).toBe(3);
  });
});
