import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project-root.js';
import type { Redis } from './redis.js';

/**
 * A Lua script from src/store/scripts/, loaded once, called by SHA and reloaded on NOSCRIPT
 * (after a Redis restart or SCRIPT FLUSH). Every key it touches is passed in KEYS.
 */
export class Script {
  private readonly source: string;
  private sha: string | undefined;

  constructor(readonly name: string) {
    this.source = readFileSync(join(projectRoot, 'src', 'store', 'scripts', `${name}.lua`), 'utf8');
  }

  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    const argv = args.map(String);
    if (this.sha === undefined) this.sha = await redis.scriptLoad(this.source);
    try {
      return await redis.evalSha(this.sha, { keys, arguments: argv });
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      this.sha = await redis.scriptLoad(this.source);
      return await redis.evalSha(this.sha, { keys, arguments: argv });
    }
  }
}
