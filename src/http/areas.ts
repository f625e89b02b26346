import type { RouteDef } from './route.js';

/** A group of routes under one prefix; the app mounts areas and /openapi.json documents them. */
export interface Area {
  prefix: string;
  /** Admin areas sit behind X-API-Key. */
  admin: boolean;
  routes: RouteDef[];
}
