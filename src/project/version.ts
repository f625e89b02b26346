import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };

export const version: string = pkg.version;
