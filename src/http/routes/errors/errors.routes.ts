// PLACEHOLDER (owned by the records helper).
import type { Store } from '../../../store/store.js';
import type { RouteDef } from '../../route.js';

export function errorRoutes(_store: Store): RouteDef[] {
  return [];
}
