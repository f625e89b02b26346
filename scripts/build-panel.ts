/**
 * Builds the /home admin panel (src/panel, Preact + TSX) with esbuild into dist/panel:
 * `assets/<name>-<hash>.js|css` (content-hashed, cached for a year) and `index.html` naming them
 * (never cached). No inline script or style, so the panel runs under a strict CSP.
 *
 *   node --import tsx scripts/build-panel.ts        (part of `npm run build`)
 *
 * Several builds may run at once (test files in parallel): each writes into its own temp folder
 * and then renames file by file into place, assets before index.html, so a reader never sees a
 * half-written file or an index.html naming an asset that is not there yet.
 */
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
export const defaultPanelDir = join(root, 'dist', 'panel');
/** URL path the panel's assets are served under (see src/http/routes/panel/). */
const assetBase = '/home/assets/';

export interface BuildPanelOptions {
  outDir?: string;
  /** Remove outDir's previous files first (a release build; not while a server may be reading it). */
  clean?: boolean;
  minify?: boolean;
}

export interface BuiltPanel {
  outDir: string;
  files: string[];
}

export async function buildPanel(options: BuildPanelOptions = {}): Promise<BuiltPanel> {
  const outDir = options.outDir ?? defaultPanelDir;
  mkdirSync(outDir, { recursive: true });
  const staging = mkdtempSync(join(outDir, '..', `.panel-build-`));
  try {
    const result = await build({
      entryPoints: { main: join(root, 'src', 'panel', 'main.tsx') },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: ['es2022'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      minify: options.minify ?? true,
      sourcemap: false,
      legalComments: 'none',
      entryNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      outdir: join(staging, 'assets'),
      metafile: true,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
    const script = outputs.find((f) => f.endsWith('.js'));
    const style = outputs.find((f) => f.endsWith('.css'));
    if (script === undefined || style === undefined)
      throw new Error(`panel build made no js/css: ${outputs.join(', ')}`);
    writeFileSync(join(staging, 'index.html'), indexHtml(assetBase + script, assetBase + style));

    if (options.clean === true) rmSync(outDir, { recursive: true, force: true });
    mkdirSync(join(outDir, 'assets'), { recursive: true });
    const assets = readdirSync(join(staging, 'assets'));
    for (const file of assets) renameSync(join(staging, 'assets', file), join(outDir, 'assets', file));
    renameSync(join(staging, 'index.html'), join(outDir, 'index.html'));
    return { outDir, files: ['index.html', ...assets.map((f) => `assets/${f}`)] };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function indexHtml(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Parley admin</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading the Parley admin panel…</p></div>
<noscript><p>The Parley admin panel needs JavaScript.</p></noscript>
</body>
</html>
`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  buildPanel({ clean: true }).then(
    ({ outDir, files }) =>
      console.log(`panel: built ${files.length} files into ${relative(root, outDir)} in ${Date.now() - started} ms`),
    (err: unknown) => {
      console.error('panel: build failed');
      console.error(err);
      process.exit(1);
    },
  );
}
