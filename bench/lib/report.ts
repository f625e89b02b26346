import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/** `bench/results/`, where every bench writes `<name>.json` and `<name>.md` (git-ignored). */
export const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));

/** What a reader needs to judge numbers from another machine. */
export interface MachineInfo {
  node: string;
  platform: string;
  cpu_model: string;
  cpu_count: number;
  /** 1-minute load average when the bench started: other work on the box skews results. */
  load_avg_1m: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    cpu_count: list.length,
    load_avg_1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

export type Align = 'left' | 'right';

/** A GitHub markdown table; numbers are right-aligned unless `align` says otherwise. */
export function markdownTable(header: string[], rows: (string | number)[][], align?: Align[]): string {
  const aligns = align ?? header.map((_, i) => (rows.every((r) => typeof r[i] === 'number') ? 'right' : 'left'));
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|');
  const lines = [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${aligns.map((a) => (a === 'right' ? '---:' : ':---')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** Rounds for display: `digits` decimals, no trailing noise. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Writes `bench/results/<name>.json` (pretty JSON) and `<name>.md`; returns both paths. */
export async function writeResults(
  name: string,
  json: unknown,
  markdown: string,
): Promise<{ json: string; markdown: string }> {
  await mkdir(resultsDir, { recursive: true });
  const paths = { json: `${resultsDir}${name}.json`, markdown: `${resultsDir}${name}.md` };
  await writeFile(paths.json, JSON.stringify(json, null, 2) + '\n');
  await writeFile(paths.markdown, markdown.endsWith('\n') ? markdown : markdown + '\n');
  return paths;
}

/** `writeResults`, then the markdown and where both files went, on stdout. */
export async function publishResults(name: string, json: unknown, markdown: string): Promise<void> {
  const paths = await writeResults(name, json, markdown);
  console.log(markdown);
  console.log(`\nwrote ${paths.json} and ${paths.markdown}`);
}
