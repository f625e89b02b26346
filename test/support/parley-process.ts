import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../src/boot/project-root.js';
import { testAdminKey } from './parley.js';
import { freePort, type TestRedis } from './redis-server.js';

export interface ParleyProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the signal that ended the process (null for a normal exit). */
  exited: Promise<NodeJS.Signals | null>;
}

/**
 * `node --import tsx src/main.ts` on the test's Redis, as its own process (so a test can kill it);
 * resolves once it listens. `env` adds PARLEY_* settings (the parent's own are not passed on).
 */
export async function startParleyProcess(redis: TestRedis, env: Record<string, string> = {}): Promise<ParleyProcess> {
  const port = await freePort();
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('PARLEY_') && name !== 'REDIS_URL'),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      ...base,
      NODE_ENV: 'test',
      PARLEY_WORKERS: '1',
      PORT: String(port),
      PARLEY_HOST: '127.0.0.1',
      PARLEY_LOG_LEVEL: 'info',
      PARLEY_ADMIN_API_KEY: testAdminKey,
      REDIS_URL: redis.url,
      MODELS_DIR: process.env['MODELS_DIR'] ?? '../shared/models',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('close', (_code, signal) => resolve(signal)),
  );
  const deadline = Date.now() + 30_000;
  while (!out.includes('Parley listening on')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`parley exited:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`parley did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, child, exited };
}
