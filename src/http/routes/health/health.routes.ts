// PLACEHOLDER (owned by the health helper).
import type { AppDeps } from '../../app.js';
import type { RouteDef } from '../../route.js';

export function healthRoutes(_deps: AppDeps): RouteDef[] {
  return [];
}
