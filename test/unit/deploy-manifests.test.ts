import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/env-schema.js';
import {
  composeEnvFiles,
  composeEnvironment,
  dataKeys,
  exportedMetricNames,
  isEnvFile,
  isParleyContainer,
  isParleyService,
  isYaml,
  k8sKind,
  k8sName,
  listFiles,
  parleyVariables,
  parseEnvFile,
  parseYamlFile,
  podContainers,
  unknownParleyVariables,
  websocketPaths,
  type Yaml,
} from './deploy-manifests-check.js';

/**
 * deploy/ (issue 23, item 5): the compose file and the Kubernetes manifests parse, have the parts
 * operators rely on (two Parley nodes behind a proxy that passes every WebSocket, Redis with
 * Sentinel, LiveKit; probes, drain and scaling), and set for Parley only variables that
 * src/config/env-schema.ts knows. The facts they are held against come from the source: the schema's keys,
 * the metric names registered in src/, the WebSocket paths declared in src/.
 */

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const deployDir = join(root, 'deploy');
const srcDir = join(root, 'src');
const known = new Set(Object.keys(envSchema.shape));
const files = listFiles(deployDir);
const read = (path: string) => readFileSync(join(deployDir, path), 'utf8');
const docsOf = (path: string) => parseYamlFile(deployDir, path).docs;
const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** Compose durations (`25s`, `1m30s`) in seconds. */
function seconds(duration: unknown): number {
  const parts = [...String(duration).matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g)];
  const unit: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6 };
  return parts.reduce((acc, [, n, u]) => acc + Number(n) * unit[u!]!, 0);
}

const compose = docsOf('compose.yaml')[0]!;
const services = compose['services'] as Record<string, Yaml>;
const env = (service: string) => composeEnvironment(services[service]!['environment']);
const parleyServices = Object.keys(services).filter((name) => isParleyService(services[name]!));
const scriptOf = (service: Yaml) => String((service['command'] as string[] | undefined)?.join(' ') ?? '');
const redisServices = Object.keys(services).filter((name) => scriptOf(services[name]!).endsWith('/redis.sh'));
const sentinelServices = Object.keys(services).filter((name) => scriptOf(services[name]!).endsWith('/sentinel.sh'));

/** A Parley compose service's whole environment: its env files (from their examples), then `environment`. */
function parleyEnv(service: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of composeEnvFiles(services[service]!['env_file'])) {
    const path = files.includes(f) ? f : `${f}.example`;
    for (const [k, v] of parseEnvFile(read(path))) out.set(k, v);
  }
  for (const [k, v] of env(service)) out.set(k, v);
  return out;
}

describe('deploy/: every file parses, every Parley variable is known to the config schema', () => {
  it('parses every YAML and env file, and holds no file of another kind', () => {
    const other = files.filter((f) => !isYaml(f) && !isEnvFile(f));
    expect(other).toEqual(
      other.filter((f) => ['README.md', '.gitignore'].includes(f) || /^nginx\/.+\.conf$|^redis\/.+\.sh$/.test(f)),
    );
    for (const f of files.filter(isYaml)) expect(parseYamlFile(deployDir, f).docs.length, f).toBeGreaterThan(0);
    for (const f of files.filter(isEnvFile)) expect(() => parseEnvFile(read(f)), f).not.toThrow();
    expect(files.filter(isYaml).length).toBeGreaterThanOrEqual(9);
  });

  it('sets for the Parley containers only variables src/config/env-schema.ts declares', () => {
    const { variables } = parleyVariables(deployDir);
    // The checker reads every place: the env file, compose's environment, the k8s ConfigMap, Secret and env.
    const where = (name: string) => new Set(variables.filter((v) => v.name === name).map((v) => v.file));
    expect(where('PARLEY_ADMIN_API_KEY')).toEqual(new Set(['parley.env.example', 'k8s/secret.example.yaml']));
    expect(where('REDIS_SENTINELS')).toEqual(new Set(['compose.yaml', 'k8s/configmap.yaml']));
    expect(where('REDIS_SENTINEL_PASSWORD')).toEqual(new Set(['compose.yaml', 'k8s/deployment.yaml']));
    expect(unknownParleyVariables(deployDir, known)).toEqual([]);
    // Other images' variables are theirs: LiveKit's keys are set, and not checked.
    expect(env('livekit').has('LIVEKIT_KEYS')).toBe(true);
    expect(known.has('LIVEKIT_KEYS')).toBe(false);
  });

  it('reports a variable the schema does not know, wherever it is planted (a copy of deploy/)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'parley-deploy-'));
    copies.push(copy);
    cpSync(deployDir, copy, { recursive: true });
    const plant = (path: string, after: string, line: string) => {
      const text = readFileSync(join(copy, path), 'utf8');
      expect(text, path).toContain(after);
      writeFileSync(join(copy, path), text.replace(after, `${after}\n${line}`));
    };
    plant('compose.yaml', '    NODE_ENV: production', '    PARLEY_NOT_A_SETTING: "1"');
    plant('parley.env.example', 'PARLEY_LOG_LEVEL=info', 'PARLEY_LOGLEVEL=debug');
    plant('k8s/configmap.yaml', '  NODE_ENV: production', "  PARLEY_DRAIN_TIMEOUT: '1000'");
    plant('k8s/deployment.yaml', '          env:', '            - { name: REDIS_SENTINEL_NAME, value: parley }');
    const problems = unknownParleyVariables(copy, known);
    expect(problems.sort()).toEqual([
      'compose.yaml services.parley-1.environment: PARLEY_NOT_A_SETTING is not a Parley variable',
      'compose.yaml services.parley-2.environment: PARLEY_NOT_A_SETTING is not a Parley variable',
      'k8s/configmap.yaml ConfigMap/parley-config (envFrom of Deployment/parley container parley): PARLEY_DRAIN_TIMEOUT is not a Parley variable',
      'k8s/deployment.yaml Deployment/parley container parley env: REDIS_SENTINEL_NAME is not a Parley variable',
      'parley.env.example compose.yaml services.parley-1.env_file: PARLEY_LOGLEVEL is not a Parley variable',
      'parley.env.example compose.yaml services.parley-2.env_file: PARLEY_LOGLEVEL is not a Parley variable',
    ]);
    // A missing env file or envFrom source is reported too.
    rmSync(join(copy, 'parley.env.example'));
    rmSync(join(copy, 'k8s/secret.example.yaml'));
    expect(unknownParleyVariables(copy, known)).toEqual(
      expect.arrayContaining([
        'compose.yaml services.parley-1.env_file: env file parley.env (or parley.env.example) is not in deploy/',
        'k8s/deployment.yaml Deployment/parley container parley: envFrom Secret parley-secrets is not in deploy/',
      ]),
    );
  });
});

describe('deploy/compose.yaml', () => {
  it('runs two Parley nodes, a proxy, LiveKit, a Redis master and replica and three Sentinels', () => {
    expect(parleyServices).toEqual(['parley-1', 'parley-2']);
    expect(String(services['proxy']?.['image'])).toMatch(/^nginx:/);
    expect(String(services['livekit']?.['image'])).toMatch(/^livekit\/livekit-server(:|$)/);
    expect([...env('livekit').keys()].sort()).toEqual(['LIVEKIT_CONFIG', 'LIVEKIT_KEYS']);
    // The master is the instance whose initial master is itself; the replica follows it.
    const master = redisServices.filter(
      (s) => env(s).get('REDIS_INITIAL_MASTER') === env(s).get('REDIS_ANNOUNCE_HOST'),
    );
    expect(master).toHaveLength(1);
    expect(redisServices).toHaveLength(2);
    for (const s of redisServices) expect(env(s).get('REDIS_INITIAL_MASTER')).toBe(master[0]);
    expect(sentinelServices).toHaveLength(3);
    for (const s of sentinelServices) {
      expect(env(s).get('REDIS_INITIAL_MASTER')).toBe(master[0]);
      expect(env(s).get('SENTINEL_ANNOUNCE_HOST')).toBe(s);
      expect(Number(env(s).get('SENTINEL_QUORUM'))).toBe(2);
    }
    // Every service keeps its data in a declared volume.
    const volumes = Object.keys((compose['volumes'] as Yaml | undefined) ?? {});
    for (const s of [...parleyServices, ...redisServices, ...sentinelServices]) {
      const data = ((services[s]!['volumes'] as string[] | undefined) ?? []).find((v) => v.split(':')[1] === '/data');
      expect(data, s).toBeDefined();
      expect(volumes).toContain(data!.split(':')[0]);
    }
  });

  it('points the Parley nodes at the Sentinels, checks them on /health/ready and lets them drain', () => {
    const masterName = env(sentinelServices[0]!).get('REDIS_MASTER_NAME');
    for (const s of parleyServices) {
      const e = parleyEnv(s);
      expect(e.get('REDIS_SENTINELS')?.split(',')).toEqual(sentinelServices.map((name) => `${name}:26379`));
      expect(e.get('REDIS_SENTINEL_MASTER')).toBe(masterName);
      expect(e.get('REDIS_URL')).toBeUndefined();
      // The admin key comes from the env file, not from the compose file.
      expect(env(s).has('PARLEY_ADMIN_API_KEY')).toBe(false);
      expect(e.has('PARLEY_ADMIN_API_KEY')).toBe(true);
      expect(e.get('NODE_ENV')).toBe('production');
      const test = (services[s]!['healthcheck'] as Yaml)['test'] as string[];
      expect(test.join(' ')).toContain(`http://127.0.0.1:${e.get('PORT')}/health/ready`);
      // Docker's stop grace covers Parley's whole shutdown (the primary adds 5 s over its workers).
      const shutdownS = Number(e.get('PARLEY_SHUTDOWN_TIMEOUT_MS')) / 1000;
      expect(Number(e.get('PARLEY_DRAIN_TIMEOUT_MS'))).toBeLessThan(Number(e.get('PARLEY_SHUTDOWN_TIMEOUT_MS')));
      expect(seconds(services[s]!['stop_grace_period'])).toBeGreaterThan(
        shutdownS + (Number(e.get('PARLEY_WORKERS') ?? 1) > 1 ? 5 : 0),
      );
    }
  });

  it('proxies to both nodes and passes every WebSocket path Parley declares', () => {
    const paths = websocketPaths(srcDir);
    expect(paths).toEqual(expect.arrayContaining(['/sdk/v1/media', '/telephony/v1/twilio/media']));
    const mount = ((services['proxy']!['volumes'] as string[]) ?? []).find((v) => v.endsWith('.conf:ro'));
    const conf = read(mount!.split(':')[0]!.replace(/^\.\//, ''));
    const upstream = /upstream parley \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    for (const s of parleyServices) expect(upstream).toMatch(new RegExp(`server ${s}:${parleyEnv(s).get('PORT')}[ ;]`));
    for (const path of paths) {
      const block = new RegExp(`location = ${path.replace(/[/.]/g, '\\$&')} \\{([^}]*)\\}`).exec(conf)?.[1];
      expect(block, path).toBeDefined();
      expect(block).toContain('proxy_pass http://parley;');
      expect(block).toContain('proxy_set_header Upgrade $http_upgrade;');
      expect(block).toContain('proxy_set_header Connection $connection_upgrade;');
      expect(block).toMatch(/proxy_read_timeout \d+h;/);
    }
    const dependsOn = Object.keys(services['proxy']!['depends_on'] as Yaml);
    expect(dependsOn.sort()).toEqual(parleyServices);
  });

  it('takes from .env.example every variable it interpolates without a default', () => {
    const text = read('compose.yaml');
    const used = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-[^}]*)?/g)];
    const required = new Set(used.filter((m) => m[2] === undefined).map((m) => m[1]!));
    const example = new Set(parseEnvFile(read('.env.example')).keys());
    for (const name of required) expect(example, name).toContain(name);
    for (const name of example)
      expect(
        used.map((m) => m[1]),
        name,
      ).toContain(name);
    expect(read('.gitignore').split('\n')).toEqual(expect.arrayContaining(['.env', 'parley.env']));
  });
});

describe('deploy/k8s', () => {
  const k8sFiles = files.filter((f) => f.startsWith('k8s/') && isYaml(f));
  const docs = k8sFiles.flatMap((f) => docsOf(f));
  const find = (kind: string, name: string) => docs.find((d) => k8sKind(d) === kind && k8sName(d) === name);
  const config = (find('ConfigMap', 'parley-config')?.['data'] ?? {}) as Record<string, string>;
  const deployment = find('Deployment', 'parley')!;
  const container = podContainers(deployment).find(isParleyContainer)!;
  const podSpec = ((deployment['spec'] as Yaml)['template'] as Yaml)['spec'] as Yaml;

  it('lists every manifest in kustomization.yaml (the examples apart)', () => {
    const kustomization = docsOf('k8s/kustomization.yaml')[0]!;
    const resources = (kustomization['resources'] as string[]).map((r) => `k8s/${r}`);
    expect(resources.sort()).toEqual(
      k8sFiles.filter((f) => !f.endsWith('/kustomization.yaml') && !f.endsWith('.example.yaml')).sort(),
    );
    for (const d of docs) expect(typeof d['apiVersion'], k8sName(d)).toBe('string');
  });

  it('probes readiness on /health/ready and liveness on /health/live on the port Parley listens on', () => {
    const port = Number(config['PORT']);
    const ports = container['ports'] as Yaml[];
    const resolve = (p: unknown) => (typeof p === 'number' ? p : ports.find((x) => x['name'] === p)?.['containerPort']);
    const probe = (name: string) => (container[name] as Yaml)['httpGet'] as Yaml;
    expect(probe('readinessProbe')['path']).toBe('/health/ready');
    expect(probe('livenessProbe')['path']).toBe('/health/live');
    for (const name of ['readinessProbe', 'livenessProbe', 'startupProbe'])
      expect(resolve(probe(name)['port']), name).toBe(port);
    const service = find('Service', 'parley')!;
    const target = ((service['spec'] as Yaml)['ports'] as Yaml[])[0]!['targetPort'];
    expect(resolve(target)).toBe(port);
    const labels = ((deployment['spec'] as Yaml)['template'] as Yaml)['metadata'] as Yaml;
    expect(labels['labels']).toMatchObject((service['spec'] as Yaml)['selector'] as Yaml);
  });

  it('pauses in preStop within the drain timeout and gives the whole shutdown its grace period', () => {
    const drainMs = Number(config['PARLEY_DRAIN_TIMEOUT_MS']);
    const shutdownMs = Number(config['PARLEY_SHUTDOWN_TIMEOUT_MS']);
    const command = (((container['lifecycle'] as Yaml)['preStop'] as Yaml)['exec'] as Yaml)['command'] as string[];
    expect(command[0]).toBe('sleep');
    const pauseS = Number(command[1]);
    expect(pauseS * 1000).toBeLessThan(drainMs);
    expect(drainMs).toBeLessThan(shutdownMs);
    const grace = Number(podSpec['terminationGracePeriodSeconds']);
    expect(grace).toBeGreaterThanOrEqual(drainMs / 1000);
    // The pause, then Parley's shutdown (the primary waits 5 s more for its workers' own bound).
    const primaryMarginS = Number(config['PARLEY_WORKERS'] ?? 1) > 1 ? 5 : 0;
    expect(grace).toBeGreaterThan(pauseS + shutdownMs / 1000 + primaryMarginS);
    // One worker process per CPU of the limit.
    const cpu = Number(((container['resources'] as Yaml)['limits'] as Yaml)['cpu']);
    expect(Number(config['PARLEY_WORKERS'])).toBeLessThanOrEqual(cpu);
  });

  it('scales on a metric Parley exports, served per pod by the prometheus-adapter rule', () => {
    const exported = exportedMetricNames(srcDir);
    expect(exported).toContain('parley_http_request_duration_seconds'); // the scan finds the registry's metrics
    const hpa = docs.find((d) => k8sKind(d) === 'HorizontalPodAutoscaler')!;
    const spec = hpa['spec'] as Yaml;
    expect(spec['scaleTargetRef']).toMatchObject({ kind: 'Deployment', name: 'parley' });
    const pods = (spec['metrics'] as Yaml[]).filter((m) => m['type'] === 'Pods').map((m) => m['pods'] as Yaml);
    expect(pods.length).toBeGreaterThan(0);
    const rules = ((docsOf('prometheus-adapter/values.yaml')[0]!['rules'] as Yaml)['custom'] as Yaml[]) ?? [];
    for (const m of pods) {
      const name = String((m['metric'] as Yaml)['name']);
      expect(exported).toContain(name);
      const rule = rules.find((r) => (r['name'] as Yaml)['as'] === name);
      expect(rule, name).toBeDefined();
      expect(String(rule!['metricsQuery'])).toContain(`sum(${name}{`);
      // The rule reads only metrics Parley exports (found and zeroed through one every process has).
      const queried = `${String(rule!['seriesQuery'])} ${String(rule!['metricsQuery'])}`.match(/\bparley_[a-z_]+/g);
      for (const metric of queried ?? []) expect(exported, metric).toContain(metric);
      // Below what a pod holds: PARLEY_WORKERS processes of PARLEY_MAX_SESSIONS each.
      const capacity = Number(config['PARLEY_WORKERS']) * Number(config['PARLEY_MAX_SESSIONS']);
      expect(Number((m['target'] as Yaml)['averageValue'])).toBeLessThan(capacity);
    }
    expect(Number(spec['minReplicas'])).toBeGreaterThanOrEqual(2);
  });

  it('reaches Redis through the Sentinels of the StatefulSet, which runs the same scripts as compose', () => {
    const scripts = find('ConfigMap', 'redis-scripts')!['data'] as Record<string, string>;
    expect(scripts['redis.sh']).toBe(read('redis/redis.sh'));
    expect(scripts['sentinel.sh']).toBe(read('redis/sentinel.sh'));
    const set = find('StatefulSet', 'redis')!;
    const replicas = Number((set['spec'] as Yaml)['replicas']);
    const svc = String((set['spec'] as Yaml)['serviceName']);
    expect(replicas).toBe(3);
    expect(find('Service', svc)?.['spec']).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(config['REDIS_SENTINELS']?.split(',')).toEqual(
      Array.from({ length: replicas }, (_, i) => `${k8sName(set)}-${i}.${svc}:26379`),
    );
    const sentinel = podContainers(set).find((c) => c['name'] === 'sentinel')!;
    const sentinelEnv = new Map(((sentinel['env'] as Yaml[]) ?? []).map((e) => [e['name'], e['value']]));
    expect(config['REDIS_SENTINEL_MASTER']).toBe(sentinelEnv.get('REDIS_MASTER_NAME'));
    expect(config['REDIS_URL']).toBeUndefined();
    // The Parley pods' secrets: the Secret's keys they take, the Redis password by reference.
    const secret = find('Secret', 'parley-secrets')!;
    expect(dataKeys(secret)).toContain('PARLEY_ADMIN_API_KEY');
    expect(existsSync(join(deployDir, 'k8s/secret.example.yaml'))).toBe(true);
  });
});
