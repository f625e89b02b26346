// The rules between the folders of src/ (issue 21), checked by `npm run check` and by
// test/unit/import-graph.test.ts (scripts/import-graph.ts, which adds the one rule dependency-
// cruiser cannot say: no cycle between two folders of src/). Ad hoc: `npx depcruise src machines`.
//
// The kernel folders (config, errors, ids, logging, primitives, project) may be imported by every
// folder and import no folder outside the kernel. The composition roots (src/main.ts,
// src/parley.ts, src/services.ts), the only files directly in src/, may import every folder; no folder imports them. Type-only imports count: a folder that needs a type from another depends on it.

/** The files of src/ that wire the folders together. */
const compositionRoots = '^src/(main|parley|services)[.]ts$';
/** The folders every other folder may import: configuration, domain errors, ids, logging, domain-free primitives, the project's root and version. */
const kernel = '^src/(config|errors|ids|logging|primitives|project)/';
/** What http/ may use of the store: the Store and its repositories, its error, its page type. */
const storeFace = '^src/store/((store|redis|unavailable|pagination)[.]ts$|repositories/)';

/** A rule that files under `from` import nothing under `to` (paths relative to the repo root). */
function forbid(name, comment, from, to) {
  return { name, comment, severity: 'error', from, to };
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    forbid(
      'machines-import-no-src',
      'The session machine is pure: its word rules sit beside it (machines/turn-words); src/ provides its actors.',
      { path: '^machines/' },
      { path: '^src/' },
    ),
    forbid(
      'kernel-imports-no-folder',
      'The kernel folders are what every folder may import: they import no folder outside the kernel and no composition root.',
      { path: kernel },
      { path: ['^src/[^/]+/', compositionRoots], pathNot: kernel },
    ),
    forbid(
      'folders-import-no-composition-root',
      'Only the composition roots see every folder; a folder declares the narrow interface it needs (e.g. AppServices).',
      { path: ['^src/[^/]+/', '^machines/'] },
      { path: compositionRoots },
    ),
    forbid(
      'pipeline-not-to-http-store-sessions-realtime',
      'The voice pipeline is RxJS over frames and providers; sessions wire it to transports and records.',
      { path: '^src/pipeline/' },
      { path: '^src/(http|store|sessions|realtime)/' },
    ),
    forbid(
      'store-not-to-http-sessions-realtime-providers',
      'The store is the data layer: Redis keys, scripts and repositories, below everything that uses it.',
      { path: '^src/store/' },
      { path: '^src/(http|sessions|realtime|providers)/' },
    ),
    forbid(
      'providers-not-to-store-http-rag-sessions',
      'Providers are adapters to STT, TTS, LLM and models: they know no storage, route, document or session.',
      { path: '^src/providers/' },
      { path: '^src/(store|http|rag|sessions)/' },
    ),
    forbid(
      'sessions-not-to-realtime',
      'realtime/ implements the transport port that sessions/ owns: realtime imports sessions, not the reverse.',
      { path: '^src/sessions/' },
      { path: '^src/realtime/' },
    ),
    forbid(
      'http-not-to-store-internals',
      'HTTP reaches data through the Store and its repositories, never its keys, scripts or Redis helpers.',
      { path: '^src/http/' },
      { path: '^src/store/', pathNot: storeFace },
    ),
    forbid(
      'redis-only-through-the-store',
      'Redis is reached only through src/store (its repositories); the composition root connects it and boot/ supervises the embedded redis-server.',
      { path: '^(src|machines)/', pathNot: ['^src/store/', compositionRoots, '^src/boot/redis-server[.]ts$'] },
      { path: ['node_modules/(redis|@redis/[^/]+)/', '^src/store/redis[.]ts$'] },
    ),
    forbid(
      'not-to-unresolvable',
      'An import that resolves to no file (a move that missed an importer): the rules above cannot see it.',
      { path: '^(src|machines)/' },
      { couldNotResolve: true },
    ),
  ],
  options: {
    // Packages are leaves (not followed); not `includeOnly`, which would hide an import that resolves to nothing.
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (see the top of this file).
    tsPreCompilationDeps: true,
    // Imports name the emitted `.js`; dependency-cruiser finds the `.ts`/`.tsx` source itself.
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
