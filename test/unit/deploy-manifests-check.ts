import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * Reading deploy/ for test/unit/deploy-manifests.test.ts: every YAML file parsed, the env files
 * read, and the environment variables the Parley containers get (compose services built from the
 * repo's Dockerfile, Kubernetes containers running the `parley` image), so the test can hold each
 * against src/config/env-schema.ts. Other images' variables (LIVEKIT_KEYS, REDIS_INITIAL_MASTER, ...)
 * are theirs, not Parley's, and are not collected.
 */

export type Yaml = Record<string, unknown>;

export interface YamlFile {
  /** Relative to the deploy folder. */
  path: string;
  docs: Yaml[];
}

/** A variable set for Parley, and where. */
export interface ParleyVariable {
  name: string;
  file: string;
  where: string;
}

/** Every file under `dir`, relative to it, sorted. */
export function listFiles(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? listFiles(join(dir, e.name), root) : e.isFile() ? [relative(root, join(dir, e.name))] : [],
    )
    .sort();
}

export const isYaml = (path: string) => /\.ya?ml$/.test(path);
/** Env files: `.env`, `*.env`, and their committed `.example` copies. */
export const isEnvFile = (path: string) => /(^|\/)(\.env|[^/]+\.env)(\.example)?$/.test(path);

/** Parses one YAML file (merge keys on, as Compose reads them); throws on any YAML error. */
export function parseYamlFile(dir: string, path: string): YamlFile {
  const docs = parseAllDocuments(readFileSync(join(dir, path), 'utf8'), { merge: true });
  if (!Array.isArray(docs)) throw new Error(`${path}: not a YAML stream`);
  const out: Yaml[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value as Yaml);
  }
  return { path, docs: out };
}

/** `KEY=value` lines of an env file (comments and blank lines skipped), in order. */
export function parseEnvFile(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m === null) throw new Error(`not an env line: ${line}`);
    vars.set(m[1]!, m[2]!);
  }
  return vars;
}

/** A compose `environment` (a map, or a list of `KEY=value`) as a map. */
export function composeEnvironment(env: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (Array.isArray(env)) {
    for (const item of env) {
      const [name, ...rest] = String(item).split('=');
      out.set(name!, rest.join('='));
    }
  } else if (env !== null && typeof env === 'object') {
    for (const [name, value] of Object.entries(env)) out.set(name, value === null ? '' : String(value));
  }
  return out;
}

/** A compose `env_file` (a path, or a list of paths or `{path}`) as paths. */
export function composeEnvFiles(envFile: unknown): string[] {
  const list = Array.isArray(envFile) ? envFile : envFile === undefined ? [] : [envFile];
  return list.map((f) => (typeof f === 'string' ? f : String((f as { path: unknown }).path)));
}

/** A compose service that runs Parley: built from the repository's Dockerfile, or a `parley` image. */
export function isParleyService(service: Yaml): boolean {
  const build = service['build'] as Yaml | string | undefined;
  if (build !== undefined) {
    const dockerfile = typeof build === 'string' ? 'Dockerfile' : String(build['dockerfile'] ?? 'Dockerfile');
    if (basename(dockerfile) === 'Dockerfile') return true;
  }
  return /^(.*\/)?parley(:|$)/.test(String(service['image'] ?? ''));
}

/** A Kubernetes container that runs Parley: the `parley` image (kustomize renames it). */
export const isParleyContainer = (container: Yaml) => /^(.*\/)?parley(:|@|$)/.test(String(container['image'] ?? ''));

export const k8sKind = (doc: Yaml) => String(doc['kind'] ?? '');
export const k8sName = (doc: Yaml) => String((doc['metadata'] as Yaml | undefined)?.['name'] ?? '');

/** The pod template's containers of a workload (Deployment, StatefulSet, ...), or []. */
export function podContainers(doc: Yaml): Yaml[] {
  const spec = (doc['spec'] as Yaml | undefined)?.['template'] as Yaml | undefined;
  const pod = spec?.['spec'] as Yaml | undefined;
  return [
    ...((pod?.['initContainers'] as Yaml[] | undefined) ?? []),
    ...((pod?.['containers'] as Yaml[] | undefined) ?? []),
  ];
}

/** Keys of a ConfigMap's or Secret's data. */
export function dataKeys(doc: Yaml): string[] {
  return ['data', 'stringData', 'binaryData'].flatMap((field) => Object.keys((doc[field] as Yaml | undefined) ?? {}));
}

/**
 * Every variable set for a Parley container under `dir` (a deploy folder): compose `environment`
 * and `env_file` of the Parley services (an env file that is not committed is read from its
 * `.example`), the env files named `parley.env*`, and the Kubernetes Parley containers' `env` and
 * the keys of the ConfigMaps and Secrets their `envFrom` names. A missing env file or envFrom
 * source is a problem too.
 */
export function parleyVariables(dir: string): { variables: ParleyVariable[]; problems: string[] } {
  const files = listFiles(dir);
  const yamls = files.filter(isYaml).map((f) => parseYamlFile(dir, f));
  const variables: ParleyVariable[] = [];
  const problems: string[] = [];
  const envFilesRead = new Set<string>();
  const readEnvFile = (path: string, where: string) => {
    const found = [path, `${path}.example`].find((p) => files.includes(p));
    if (found === undefined) return problems.push(`${where}: env file ${path} (or ${path}.example) is not in deploy/`);
    envFilesRead.add(found);
    for (const name of parseEnvFile(readFileSync(join(dir, found), 'utf8')).keys())
      variables.push({ name, file: found, where });
  };

  const k8sDocs = yamls.flatMap((f) => f.docs.map((doc) => ({ file: f.path, doc })));
  for (const { path, docs } of yamls) {
    for (const doc of docs) {
      const services = doc['services'] as Record<string, Yaml> | undefined;
      if (services !== undefined) {
        for (const [name, service] of Object.entries(services)) {
          if (!isParleyService(service)) continue;
          for (const v of composeEnvironment(service['environment']).keys())
            variables.push({ name: v, file: path, where: `services.${name}.environment` });
          for (const f of composeEnvFiles(service['env_file']))
            readEnvFile(join(path, '..', f).replace(/^\.\//, ''), `${path} services.${name}.env_file`);
        }
      }
      for (const container of podContainers(doc).filter(isParleyContainer)) {
        const where = `${k8sKind(doc)}/${k8sName(doc)} container ${String(container['name'])}`;
        for (const e of (container['env'] as Yaml[] | undefined) ?? [])
          variables.push({ name: String(e['name']), file: path, where: `${where} env` });
        for (const from of (container['envFrom'] as Yaml[] | undefined) ?? []) {
          const ref = (from['configMapRef'] ?? from['secretRef']) as Yaml | undefined;
          const kind = from['configMapRef'] !== undefined ? 'ConfigMap' : 'Secret';
          const source = k8sDocs.find((d) => k8sKind(d.doc) === kind && k8sName(d.doc) === String(ref?.['name']));
          if (source === undefined) {
            problems.push(`${path} ${where}: envFrom ${kind} ${String(ref?.['name'])} is not in deploy/`);
            continue;
          }
          for (const key of dataKeys(source.doc))
            variables.push({
              name: key,
              file: source.file,
              where: `${kind}/${k8sName(source.doc)} (envFrom of ${where})`,
            });
        }
      }
    }
  }
  // Parley's env files not named by a compose file still hold Parley variables.
  for (const f of files.filter((p) => isEnvFile(p) && /(^|\/)parley\.env/.test(p) && !envFilesRead.has(p)))
    readEnvFile(f.replace(/\.example$/, ''), f);
  return { variables, problems };
}

/**
 * The problems with the Parley variables under `dir`: a name that `known` (the config schema's
 * keys) lacks, with its file and place, plus the missing sources parleyVariables found.
 */
export function unknownParleyVariables(dir: string, known: ReadonlySet<string>): string[] {
  const { variables, problems } = parleyVariables(dir);
  return [
    ...problems,
    ...variables
      .filter((v) => !known.has(v.name))
      .map((v) => `${v.file} ${v.where}: ${v.name} is not a Parley variable`),
  ];
}

/** Every `.ts` file under `dir`. */
function sourceFiles(dir: string): string[] {
  return listFiles(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

/** The Prometheus metric names Parley's source registers (`new Gauge|Counter|Histogram|Summary({ name: '…'`). */
export function exportedMetricNames(srcDir: string): Set<string> {
  const names = new Set<string>();
  const re = /new (?:Gauge|Counter|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name: '([a-zA-Z_:][a-zA-Z0-9_:]*)'/g;
  for (const file of sourceFiles(srcDir)) for (const m of readFileSync(file, 'utf8').matchAll(re)) names.add(m[1]!);
  return names;
}

/** The WebSocket paths Parley's source declares (`export const …MediaPath = '/…'`, `mediaPath`). */
export function websocketPaths(srcDir: string): string[] {
  const paths = new Set<string>();
  const re = /export const \w*[mM]ediaPath = '(\/[^']*)'/g;
  for (const file of sourceFiles(srcDir)) for (const m of readFileSync(file, 'utf8').matchAll(re)) paths.add(m[1]!);
  return [...paths].sort();
}
