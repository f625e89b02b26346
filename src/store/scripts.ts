import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../project/project-root.js';
import { awaitWriteReplicas, type Redis } from './redis.js';

export interface ScriptOptions {
  /**
   * The script writes records or events that must survive a failover: its reply waits for the
   * replicas (REDIS_WAIT_REPLICAS, Sentinel or cluster). False for reads and for state that is
   * rebuilt on its own (rate-limit buckets, lease renewals). Default true.
   */
  durable?: boolean;
}

/**
 * A Lua script from src/store/scripts/, loaded once, called by SHA and reloaded on NOSCRIPT
 * (after a Redis restart, a SCRIPT FLUSH, or a failover to a node that never saw it). Every key it
 * touches is passed in KEYS.
 */
export class Script {
  private readonly source: string;
  private sha: string | undefined;
  private readonly durable: boolean;

  constructor(
    readonly name: string,
    options: ScriptOptions = {},
  ) {
    this.source = readFileSync(join(projectRoot, 'src', 'store', 'scripts', `${name}.lua`), 'utf8');
    this.durable = options.durable ?? true;
  }

  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    const reply = await this.call(redis, keys, args.map(String));
    if (this.durable) await awaitWriteReplicas(redis);
    return reply;
  }

  private async call(redis: Redis, keys: string[], argv: string[]): Promise<unknown> {
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
