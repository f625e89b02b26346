// Builds the client SDK (src/client) with esbuild into dist/client: parley-client.js (ES module,
// no dependencies, for browsers and Node 20+), audio-worklet.js (its AudioWorklet processors),
// types/ (declarations, by tsc with src/client/tsconfig.json) and package.json, so
// `npm pack dist/client` makes the npm package. Parley serves the first two as
// /sdk/v1/client.js and /sdk/v1/audio-worklet.js.
//   npm run build:client
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { clientBuildDir } from '../src/http/routes/client/client-files.js';
import { projectRoot } from '../src/project/project-root.js';

const source = join(projectRoot, 'src', 'client');

/** Builds into `outdir`; each file is written elsewhere first and renamed in, so a running server never reads half a file. */
export async function buildClient(outdir = clientBuildDir): Promise<string[]> {
  await mkdir(outdir, { recursive: true });
  const staging = await mkdtemp(join(dirname(outdir), '.client-build-'));
  try {
    await build({
      entryPoints: {
        'parley-client': join(source, 'index.ts'),
        'audio-worklet': join(source, 'browser', 'audio-worklet.ts'),
      },
      outdir: staging,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: ['es2022'],
      sourcemap: false,
      legalComments: 'none',
      logLevel: 'warning',
    });
    const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(staging, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    const files = ['parley-client.js', 'audio-worklet.js', 'package.json'];
    for (const file of files) await rename(join(staging, file), join(outdir, file));
    await declarations(join(outdir, 'types'));
    return [...files, 'types/'].map((f) => join(outdir, f));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The package's .d.ts files, from the same sources. */
async function declarations(outDir: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(source, 'tsconfig.json'), '--outDir', outDir]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await buildClient();
  console.log(`client SDK built: ${files.join(', ')}`);
}
