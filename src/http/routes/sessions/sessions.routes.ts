// PLACEHOLDER (owned by the records helper).
import type { Store } from '../../../store/store.js';
import type { RouteDef } from '../../route.js';

export function sessionRoutes(_store: Store): RouteDef[] {
  return [];
}
