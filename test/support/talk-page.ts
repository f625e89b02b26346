import { build } from 'esbuild';
import { projectRoot } from '../../src/project/project-root.js';

/** A page that mounts <Talk> (bundled with esbuild from src/panel/talk) and nothing else. */
export async function talkTestPage(config: unknown): Promise<{ html: string; script: string }> {
  const bundle = await build({
    stdin: {
      contents: `
        import { h, render } from 'preact';
        import { Talk } from './src/panel/talk/talk.tsx';
        const config = JSON.parse(document.getElementById('talk-config').textContent);
        render(h(Talk, config), document.getElementById('root'));`,
      resolveDir: projectRoot,
      loader: 'tsx',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    write: false,
    logLevel: 'warning',
  });
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Talk</title></head>
<body><main id="root"></main>
<script type="application/json" id="talk-config">${JSON.stringify(config)}</script>
<script type="module" src="/talk.js"></script></body></html>`;
  return { html, script: bundle.outputFiles[0]!.text };
}
