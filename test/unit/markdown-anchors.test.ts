import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/**
 * The README is a summary that links into docs/ and bench/README.md at the place a reader looks
 * for the detail: every relative link must land on a file that exists and, when it names a
 * `#fragment`, on a heading of that file (GitHub's anchors). `standalone-repository.test.ts`
 * checks that the files exist; this file checks the fragments too.
 */

/** Every Markdown file git tracks or would track (not ignored), relative to the root. */
function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '*.md'], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  return out.split('\0').filter((f) => f !== '' && existsSync(join(projectRoot, f)));
}

/** The text outside fenced code blocks (a `# comment` in a shell block is no heading). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    })
    .join('\n');
}

/** GitHub's anchor of a heading: its text lower-cased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // a link: its text
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a Markdown file has: its headings (numbered when repeated) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = prose(markdown);
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return anchors;
}

/** Every relative link of a Markdown file, outside code, as [path or '', fragment or undefined]. */
function linksOf(markdown: string): [string, string | undefined][] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]*))?\)/g)]
    .filter(([, target]) => !/^[a-z]+:/i.test(target!))
    .map(([, target, fragment]) => [target!, fragment]);
}

describe('relative links between the Markdown files', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Phone calls (Twilio Media Streams)')).toBe('phone-calls-twilio-media-streams');
    expect(slug('A local stack: Ollama, speaches, Kokoro-FastAPI')).toBe(
      'a-local-stack-ollama-speaches-kokoro-fastapi',
    );
    expect(slug('What `npm start` gives')).toBe('what-npm-start-gives');
    expect(slug('`GET /admin/v1/nodes`')).toBe('get-adminv1nodes');
    expect(slug("Turn-taking on people's voices")).toBe('turn-taking-on-peoples-voices');
    expect(slug('Speech to text (`stt`, ~6 min)')).toBe('speech-to-text-stt-6-min');
  });

  it('land on a file that exists and, with a #fragment, on one of its headings', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const markdown = readFileSync(join(projectRoot, file), 'utf8');
      for (const [target, fragment] of linksOf(markdown)) {
        const path = target === '' ? join(projectRoot, file) : resolve(projectRoot, dirname(file), target);
        if (relative(projectRoot, path).startsWith('..') || !existsSync(path)) {
          broken.push(`${file} → ${target}`);
          continue;
        }
        if (fragment === undefined || fragment === '' || statSync(path).isDirectory() || !path.endsWith('.md'))
          continue;
        if (!anchorsOf(readFileSync(path, 'utf8')).has(decodeURIComponent(fragment))) {
          broken.push(`${file} → ${target}#${fragment}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
