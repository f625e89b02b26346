import { cruise, type ICruiseResult, type IModule } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { join } from 'node:path';

/**
 * The import graph of src/ and machines/ checked against the rules between folders (issue 21): the
 * rules in .dependency-cruiser.mjs, and no cycle between two folders of src/ (the one rule
 * dependency-cruiser cannot say: its `no-circular` is per module, and its folder scope mixes the
 * depths of nested folders). `npm run check` runs it through scripts/check-imports.ts;
 * test/unit/import-graph.test.ts asserts it finds nothing.
 */

/** One broken rule: its name, then the import(s) that break it (a cycle's one a line). */
export type Violation = string;

export interface ImportGraphOptions {
  /** The folder holding .dependency-cruiser.mjs and tsconfig.json, and src/ and machines/ (paths in rules are relative to it). */
  root: string;
}

/** The violations of the rules in `root`'s import graph; empty when it keeps them all. */
export async function importGraphViolations({ root }: ImportGraphOptions): Promise<Violation[]> {
  const result = await cruiseImports(root);
  const ruleViolations = result.summary.violations.map(
    (v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`,
  );
  return [...ruleViolations, ...folderCycles(result.modules)];
}

async function cruiseImports(root: string): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.mjs'));
  const tsConfig = extractTSConfig(join(root, 'tsconfig.json'));
  const { output } = await cruise(['src', 'machines'], { ...options, baseDir: root }, {}, { tsConfig });
  if (typeof output === 'string') throw new Error(`dependency-cruiser answered text, not a result: ${output}`);
  return output;
}

/** The folder a module counts in for cycles: `src/<folder>` or `machines`; none for the root files of src/. */
export function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] === 'machines') return 'machines';
  if (parts[0] === 'src' && parts.length > 2) return `src/${parts[1]}`;
  return undefined;
}

/**
 * Every set of folders that import each other round in a circle (a strongly connected component of
 * the folder graph with more than one folder), with one import for each edge inside it.
 */
export function folderCycles(modules: readonly Pick<IModule, 'source' | 'dependencies'>[]): Violation[] {
  /** folder → imported folder → one import that makes the edge ("a.ts → b.ts"). */
  const edges = new Map<string, Map<string, string>>();
  for (const m of modules) {
    const from = folderOf(m.source);
    if (from === undefined) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (to === undefined || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      edges.set(from, out);
      if (!out.has(to)) out.set(to, `${m.source} → ${d.resolved}`);
    }
  }
  return stronglyConnected(edges)
    .filter((component) => component.length > 1)
    .map((component) => {
      const inside = new Set(component);
      const witnesses = component.flatMap((from) =>
        [...(edges.get(from) ?? [])].filter(([to]) => inside.has(to)).map(([, via]) => via),
      );
      return [`no-folder-cycle: ${component.join(' ↔ ')}`, ...witnesses].join('\n    ');
    });
}

/** Tarjan's strongly connected components of a graph, each sorted, in a stable order. */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((out) => [...out.keys()])])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component.sort());
  };

  for (const node of nodes) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
