// CONTRACT (owned by the health helper): replace this file's body, keep these exports.
import type { Store } from './store/store.js';

export class Metrics {
  constructor(readonly store: Store) {}
}
