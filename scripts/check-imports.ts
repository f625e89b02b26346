import { projectRoot } from '../src/project/project-root.js';
import { importGraphViolations } from './import-graph.js';

// `npm run check`: the rules between the folders of src/ (scripts/import-graph.ts); exit 1 on any violation.
const violations = await importGraphViolations({ root: projectRoot });
if (violations.length === 0) {
  process.stdout.write('import graph: no violations\n');
} else {
  process.stderr.write(`${violations.join('\n')}\nimport graph: ${violations.length} violation(s)\n`);
  process.exitCode = 1;
}
