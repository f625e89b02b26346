import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { freePort } from './redis-server.js';

/**
 * Real Redis topologies for the tests, each process on a free port with a temp dir and stopped by
 * its pid in close() (and killed with the test process if close() never runs): a master with a
 * replica watched by three Sentinels, and a three-master Redis Cluster.
 */

/** One redis-server or redis-sentinel child. */
class RedisChild {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {}

  static async start(bin: string, args: string[], port: number): Promise<RedisChild> {
    const child = spawn(bin, args, { stdio: 'ignore' });
    const reap = () => child.kill('SIGKILL');
    process.once('exit', reap);
    child.once('exit', () => process.removeListener('exit', reap));
    const started = new RedisChild(port, child);
    await waitFor(`${bin} on port ${port}`, 10_000, async () => {
      if (!started.running) throw new Error(`${bin} exited at start (is it installed?)`);
      return (await command(port, ['PING'])) === 'PONG';
    });
    return started;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Stops the process (SIGKILL: a crash, nothing flushed; SIGTERM: a clean stop) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running) return;
    await new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill(signal);
    });
  }
}

/** Sends one command to 127.0.0.1:port on a fresh connection; undefined when nothing answers. */
export async function command(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 1_000 } });
  client.on('error', () => {}); // an unreachable node answers undefined below
  try {
    await client.connect();
    return await client.sendCommand(args);
  } catch {
    return undefined;
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** Polls `check` every 50 ms until it returns true; throws `what` after `ms`. */
export async function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const dataArgs = (port: number, dir: string) => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--dir',
  dir,
  '--save',
  '',
  '--appendonly',
  'no',
  '--daemonize',
  'no',
  '--loglevel',
  'warning',
];

export const sentinelMasterName = 'parley-test';

/**
 * A master, its replicas (two by default: one is left to acknowledge writes after the other is
 * promoted) and three Sentinels (quorum 2, master down after 1 s, failover timeout 3 s).
 */
export class RedisSentinelSet {
  private constructor(
    private readonly dir: string,
    readonly nodes: RedisChild[],
    readonly sentinels: RedisChild[],
  ) {}

  static async start(replicas = 2): Promise<RedisSentinelSet> {
    const dir = mkdtempSync(join(tmpdir(), 'parley-sentinel-'));
    const set = new RedisSentinelSet(dir, [], []);
    try {
      const masterPort = await freePort();
      set.nodes.push(await RedisChild.start('redis-server', dataArgs(masterPort, mkdir(dir, 'master')), masterPort));
      for (let i = 0; i < replicas; i++) {
        const port = await freePort();
        const args = [...dataArgs(port, mkdir(dir, `replica-${i}`)), '--replicaof', '127.0.0.1', String(masterPort)];
        set.nodes.push(await RedisChild.start('redis-server', args, port));
        await waitFor('the replica to sync', 10_000, async () =>
          String(await command(port, ['INFO', 'replication'])).includes('master_link_status:up'),
        );
      }
      for (let i = 0; i < 3; i++) {
        const port = await freePort();
        const conf = join(dir, `sentinel-${i}.conf`);
        writeFileSync(
          conf,
          [
            `port ${port}`,
            'bind 127.0.0.1',
            'daemonize no',
            `dir ${mkdir(dir, `sentinel-${i}`)}`,
            `sentinel monitor ${sentinelMasterName} 127.0.0.1 ${masterPort} 2`,
            `sentinel down-after-milliseconds ${sentinelMasterName} 1000`,
            `sentinel failover-timeout ${sentinelMasterName} 3000`,
            `sentinel parallel-syncs ${sentinelMasterName} 1`,
            '',
          ].join('\n'),
        );
        set.sentinels.push(await RedisChild.start('redis-sentinel', [conf], port));
      }
      // Every Sentinel knows every replica and the two other Sentinels before a failover is possible.
      await waitFor('the Sentinels to discover each other and the replicas', 20_000, async () => {
        for (const s of set.sentinels) {
          const known = await command(s.port, ['SENTINEL', 'REPLICAS', sentinelMasterName]);
          const others = await command(s.port, ['SENTINEL', 'SENTINELS', sentinelMasterName]);
          if (!Array.isArray(known) || known.length < replicas || !Array.isArray(others) || others.length < 2)
            return false;
        }
        return true;
      });
      return set;
    } catch (err) {
      await set.close();
      throw err;
    }
  }

  /** REDIS_SENTINELS for Parley. */
  get sentinelList(): string {
    return this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',');
  }

  /** The port of the master the Sentinels name now. */
  async masterPort(): Promise<number> {
    for (const s of this.sentinels) {
      const reply = await command(s.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinelMasterName]);
      if (Array.isArray(reply)) return Number(reply[1]);
    }
    throw new Error('no Sentinel answered');
  }

  /** Kills the master the Sentinels name now with SIGKILL; returns its port. */
  async killMaster(): Promise<number> {
    const port = await this.masterPort();
    const master = this.nodes.find((n) => n.port === port);
    if (master === undefined) throw new Error(`no node of this set on port ${port}`);
    await master.stop('SIGKILL');
    return port;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.nodes].map((c) => c.stop('SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A Redis Cluster of `masters` masters with `replicas` replicas each, created with `redis-cli
 * --cluster create`; a master unreachable for `cluster-node-timeout` (1 s) is failed over to its replica.
 */
export class RedisClusterSet {
  private constructor(
    private readonly dir: string,
    readonly nodes: RedisChild[],
  ) {}

  static async start(masters = 3, replicas = 0): Promise<RedisClusterSet> {
    const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-'));
    const set = new RedisClusterSet(dir, []);
    try {
      for (let i = 0; i < masters * (1 + replicas); i++) {
        const port = await freePort();
        const nodeDir = mkdir(dir, `node-${i}`);
        const args = [
          ...dataArgs(port, nodeDir),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout',
          '1000',
        ];
        set.nodes.push(await RedisChild.start('redis-server', args, port));
      }
      const create = spawnSync(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...set.nodes.map((n) => `127.0.0.1:${n.port}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ],
        { encoding: 'utf8', timeout: 30_000 },
      );
      if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
      await waitFor('cluster_state:ok on every node', 20_000, async () => {
        for (const n of set.nodes)
          if (!String(await command(n.port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok')) return false;
        return true;
      });
      await waitFor('every replica in sync', 20_000, async () => {
        for (const n of set.nodes) {
          const info = String(await command(n.port, ['INFO', 'replication']));
          if (info.includes('role:slave') && !info.includes('master_link_status:up')) return false;
        }
        return true;
      });
      return set;
    } catch (err) {
      await set.close();
      throw err;
    }
  }

  /** REDIS_CLUSTER_NODES for Parley. */
  get nodeList(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  /** Starts one more node and makes it a replica of the master on `masterPort` (redis-cli --cluster add-node). */
  async addReplica(masterPort: number): Promise<void> {
    const port = await freePort();
    const nodeDir = mkdir(this.dir, `node-${this.nodes.length}`);
    const args = [
      ...dataArgs(port, nodeDir),
      ...['--cluster-enabled', 'yes', '--cluster-config-file', join(nodeDir, 'nodes.conf')],
      ...['--cluster-node-timeout', '1000'],
    ];
    this.nodes.push(await RedisChild.start('redis-server', args, port));
    const masterId = String(await command(masterPort, ['CLUSTER', 'MYID']));
    const add = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'add-node',
        `127.0.0.1:${port}`,
        `127.0.0.1:${masterPort}`,
        '--cluster-slave',
        '--cluster-master-id',
        masterId,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (add.status !== 0) throw new Error(`redis-cli --cluster add-node failed: ${add.stdout}${add.stderr}`);
    await waitFor('the new replica in sync', 20_000, async () =>
      String(await command(port, ['INFO', 'replication'])).includes('master_link_status:up'),
    );
  }

  /** The port of the master serving `slot` now, as a live node sees it (CLUSTER SLOTS). */
  async slotOwner(slot: number): Promise<number> {
    for (const n of this.nodes.filter((node) => node.running)) {
      const ranges = await command(n.port, ['CLUSTER', 'SLOTS']);
      if (!Array.isArray(ranges)) continue;
      for (const [start, end, master] of ranges as [number, number, [string, number]][])
        if (start <= slot && slot <= end) return Number(master[1]);
    }
    throw new Error(`no live node knows slot ${slot}`);
  }

  /** Kills the master serving `slot` with SIGKILL; returns its port. */
  async killSlotOwner(slot: number): Promise<number> {
    const port = await this.slotOwner(slot);
    await this.nodes.find((n) => n.port === port)!.stop('SIGKILL');
    return port;
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop('SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function mkdir(parent: string, name: string): string {
  const path = join(parent, name);
  mkdirSync(path, { recursive: true });
  return path;
}
