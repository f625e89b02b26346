import type { Middleware } from 'koa';
import type { RouteDef } from './route.js';

/** A group of routes under one prefix; the app mounts areas and /openapi.json documents them. */
export interface Area {
  prefix: string;
  /** Admin areas sit behind X-API-Key. */
  admin: boolean;
  routes: RouteDef[];
  /** Run before every route of the area (after body parsing, before validation). */
  middleware?: Middleware[];
}
