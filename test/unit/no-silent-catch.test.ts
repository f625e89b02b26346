import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/project/project-root.js';

/**
 * No silent catch (issue 33): every catch logs, records, or says in a comment why dropping what it
 * caught is safe. This scan finds the ones that do none of that in form: a `catch` block, or a
 * `.catch(h)` or `.then(ok, h)` handler, that has no statement or only gives back a constant
 * (`{}`, `() => undefined`, `catch { return null; }`, …; a non-empty message is a report), with no
 * comment inside it, after it on its line, or alone on the line above it.
 */

const scanned = ['src', 'scripts'];
const sourceFile = /\.(ts|tsx|mts|js|mjs)$/;

/** The 1-based lines of `source`'s silent catches. */
function silentCatchLines(path: string, source: string): number[] {
  const kind = /\.tsx$/.test(path) ? ts.ScriptKind.TSX : /\.m?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, kind);
  /** Each catch that drops what it caught: the node a comment may sit in or beside, and the line to report. */
  const dropping: { node: ts.Node; line: number }[] = [];
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line;

  const visit = (node: ts.Node): void => {
    if (ts.isCatchClause(node) && dropsIn(node.block)) dropping.push({ node, line: lineOf(node) });
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const handler = method === 'catch' ? node.arguments[0] : method === 'then' ? node.arguments[1] : undefined;
      if (handler !== undefined && drops(handler)) dropping.push({ node, line: lineOf(handler) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const lines = new Set(dropping.map((d) => d.line));
  return dropping.filter((d) => !explained(file, d.node, lines)).map((d) => d.line + 1);
}

/** A handler that does nothing with what it caught: no statement, or only a constant for an answer. */
function drops(handler: ts.Expression): boolean {
  if (!ts.isArrowFunction(handler) && !ts.isFunctionExpression(handler)) return false;
  return ts.isBlock(handler.body) ? dropsIn(handler.body) : constant(handler.body);
}

/** A block with no statement, or one that only returns (a constant, or nothing). */
function dropsIn(block: ts.Block): boolean {
  const [first, ...rest] = block.statements;
  if (first === undefined) return true;
  return (
    rest.length === 0 && ts.isReturnStatement(first) && (first.expression === undefined || constant(first.expression))
  );
}

/** A value that says nothing of what was caught: undefined, null, a boolean, a number, an empty string, array or object. */
function constant(e: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))
    return constant(e.expression);
  if (ts.isVoidExpression(e)) return ts.isLiteralExpression(e.expression);
  if (ts.isIdentifier(e)) return e.text === 'undefined';
  if (ts.isArrayLiteralExpression(e)) return e.elements.length === 0;
  if (ts.isObjectLiteralExpression(e)) return e.properties.length === 0;
  // a message (a non-empty string) reports what went wrong; an empty one stands for nothing
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text === '';
  return (
    ts.isLiteralExpression(e) ||
    [ts.SyntaxKind.NullKeyword, ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword].includes(e.kind)
  );
}

/**
 * A comment inside `node`, after it on the line where it ends, or alone on the line above where it
 * starts (or above the run of dropping catches it is in, `dropping` their 0-based lines: one
 * comment may speak for several).
 */
function explained(file: ts.SourceFile, node: ts.Node, dropping: ReadonlySet<number>): boolean {
  const text = file.text;
  const start = node.getStart(file);
  if (commentIn(text.slice(start, node.end))) return true;
  const lineEnd = text.indexOf('\n', node.end);
  if (commentIn(text.slice(node.end, lineEnd === -1 ? undefined : lineEnd))) return true;
  const lines = text.split('\n');
  const commentLine = (i: number) => /^\s*(\/\/|\/\*|\*)/.test(lines[i]!);
  let above = file.getLineAndCharacterOfPosition(start).line - 1;
  while (above >= 0 && !commentLine(above) && dropping.has(above)) above--;
  return above >= 0 && commentLine(above);
}

/** Whether a piece of code holds a comment (outside its strings and template literals). */
function commentIn(code: string): boolean {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, code);
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) return true;
  }
  return false;
}

/** The source files under `dir`, at any depth. */
function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFilesUnder(path);
    return entry.isFile() && sourceFile.test(entry.name) ? [path] : [];
  });
}

/** Every silent catch under the scanned folders of `root`, as `path:line: code`. */
function silentCatchesUnder(root: string): string[] {
  const found: string[] = [];
  for (const path of scanned.flatMap((folder) => sourceFilesUnder(join(root, folder)))) {
    const source = readFileSync(path, 'utf8');
    const lines = source.split('\n');
    for (const line of silentCatchLines(path, source)) {
      found.push(`${relative(root, path)}:${line}: ${lines[line - 1]!.trim()}`);
    }
  }
  return found.sort();
}

describe('catches in src/ and scripts/ (issue 33)', () => {
  it('each logs, records, or says in a comment why dropping is safe', () => {
    const silent = silentCatchesUnder(projectRoot);
    expect(silent, `\n${silent.join('\n')}\n`).toEqual([]);
  });
});

describe('the silent-catch scan', () => {
  it('finds empty catch blocks and handlers that drop what they caught, and passes those that say why', () => {
    const code = [
      /* 1 */ 'try { a(); } catch {}',
      /* 2 */ 'try { a(); } catch (err) {',
      /* 3 */ '}',
      /* 4 */ 'p.catch(() => {});',
      /* 5 */ 'p.catch(() => undefined).then(() => 1, () => null);',
      /* 6 */ 'await p.catch(function () {});',
      /* 7 */ 'p.then(ok);',
      /* 8 */ 'try { a(); } catch { /* the file may be gone: nothing to clean */ }',
      /* 9 */ 'try { a(); } catch {} // a() throws only when already closed',
      /* 10 */ 'p.catch(() => undefined); // its caller awaits p and sees the rejection',
      /* 11 */ '// closing twice is harmless',
      /* 12 */ 'await close().catch(() => {});',
      /* 13 */ 'p.catch((err) => log.warn({ err }, "lost"));',
      /* 14 */ 'try { a(); } catch (err) { log.warn({ err }); }',
      /* 15 */ 'p.catch(() => fallback());',
      /* 16 */ 'p.catch(() => null); const url = "http://x";',
      /* 17 */ 'try { a(); } catch { return null; }',
      /* 18 */ 'p.catch(() => { return; });',
      /* 19 */ 'try { a(); } catch { return { ok: false, message: "a() failed" }; }',
      /* 20 */ 'p.then(() => true as const, () => true as const);',
      /* 21 */ '// both are awaited below: this only marks them handled',
      /* 22 */ 'a.catch(() => undefined);',
      /* 23 */ 'b.catch(() => undefined);',
    ].join('\n');
    expect(silentCatchLines('example.ts', code)).toEqual([1, 2, 4, 5, 5, 6, 16, 17, 18, 20]);
  });

  it('reads JavaScript and TSX', () => {
    expect(silentCatchLines('a.mjs', 'try { a(); } catch {}\n')).toEqual([1]);
    expect(silentCatchLines('a.tsx', 'const v = <p>{x.catch(() => null)}</p>;\n')).toEqual([1]);
  });
});
