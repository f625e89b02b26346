import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importGraphViolations } from '../../scripts/import-graph.js';
import { projectRoot } from '../../src/project/project-root.js';

/** A cruise of the whole tree: a few seconds. */
const cruiseTimeoutMs = 60_000;

describe('the import graph of src/ and machines/ (issue 21)', () => {
  it(
    'keeps the rules between folders and has no cycle between two folders',
    async () => {
      const violations = await importGraphViolations({ root: projectRoot });
      expect(violations, `\n${violations.join('\n')}\n`).toEqual([]);
    },
    cruiseTimeoutMs,
  );
});

describe('the import-graph check', () => {
  // A tree that breaks every rule once, next to imports the rules allow, checked with the project's rules.
  const root = mkdtempSync(join(tmpdir(), 'parley-import-graph-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  cpSync(join(projectRoot, '.dependency-cruiser.mjs'), join(root, '.dependency-cruiser.mjs'));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  const files: Record<string, string[]> = {
    'machines/machine.ts': ['../src/config/config.js'],
    'src/config/config.ts': ['../logging/logger.js', '../store/keys.js'],
    'src/logging/logger.ts': [],
    'src/parley.ts': ['./http/app.js', './services.js', './store/keys.js'],
    'src/services.ts': ['./sessions/session.js'],
    'src/http/app.ts': [
      '../config/config.js',
      '../store/store.js',
      '../store/repositories/agents.js',
      '../services.js',
    ],
    'src/http/routes.ts': ['../store/keys.js'],
    'src/store/store.ts': ['./keys.js', '../providers/stt.js'],
    'src/store/keys.ts': [],
    'src/store/repositories/agents.ts': ['../keys.js'],
    'src/providers/stt.ts': ['../rag/chunker.js'],
    'src/rag/chunker.ts': ['./gone.js'],
    'src/pipeline/listen.ts': ['../providers/stt.js', '../sessions/session.js'],
    'src/realtime/transport.ts': ['../sessions/session.js'],
    'src/sessions/session.ts': ['../../machines/machine.js', '../realtime/transport.js'],
  };
  for (const [file, imports] of Object.entries(files)) {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    const body = imports.map((path, i) => `import * as m${i} from '${path}';\nvoid m${i};\n`).join('');
    writeFileSync(join(root, file), `${body}export const here = '${file}';\n`);
  }

  it(
    'names each broken rule and the import that breaks it, and passes what the rules allow',
    async () => {
      const violations = await importGraphViolations({ root });
      expect(violations.sort()).toEqual([
        'folders-import-no-composition-root: src/http/app.ts → src/services.ts',
        'http-not-to-store-internals: src/http/routes.ts → src/store/keys.ts',
        'kernel-imports-no-folder: src/config/config.ts → src/store/keys.ts',
        'machines-import-no-src: machines/machine.ts → src/config/config.ts',
        [
          'no-folder-cycle: src/realtime ↔ src/sessions',
          'src/realtime/transport.ts → src/sessions/session.ts',
          'src/sessions/session.ts → src/realtime/transport.ts',
        ].join('\n    '),
        'not-to-unresolvable: src/rag/chunker.ts → ./gone.js',
        'pipeline-not-to-http-store-sessions-realtime: src/pipeline/listen.ts → src/sessions/session.ts',
        'providers-not-to-store-http-rag-sessions: src/providers/stt.ts → src/rag/chunker.ts',
        'sessions-not-to-realtime: src/sessions/session.ts → src/realtime/transport.ts',
        'store-not-to-http-sessions-realtime-providers: src/store/store.ts → src/providers/stt.ts',
      ]);
    },
    cruiseTimeoutMs,
  );
});
