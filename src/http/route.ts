import type Router from '@koa/router';
import type {} from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { AppError, ValidationError, type FieldProblem } from '../errors/app-errors.js';
import { errorBodySchema } from './error-body.js';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type AnyObject = z.ZodObject;

export interface RouteInput<
  P extends AnyObject | undefined,
  Q extends AnyObject | undefined,
  B extends z.ZodType | undefined,
> {
  params: P extends AnyObject ? z.infer<P> : Record<string, never>;
  query: Q extends AnyObject ? z.infer<Q> : Record<string, never>;
  body: B extends z.ZodType ? z.infer<B> : undefined;
}

export interface RouteResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One endpoint: its schemas validate the request and describe it in /openapi.json, so the document
 * cannot drift from what the server accepts.
 */
export interface RouteDef<
  P extends AnyObject | undefined = AnyObject | undefined,
  Q extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  /** Koa-style path relative to the router's prefix, e.g. `/agents/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * Request bodies the handler parses itself (multipart uploads), by content type: documented in
   * /openapi.json, not validated by mountRoutes.
   */
  documentedBody?: Record<string, z.ZodType>;
  /**
   * Problems of the body that its schema cannot know because they depend on this server's
   * configuration (paths as in `details`: `body.…`). Read from the body as sent, whether or not the
   * schema accepted it, so that one 400 lists them beside the schema's: `validation_error` names
   * every bad field of a request at once. May read the disk (a model file a preset names).
   */
  bodyProblems?: (body: unknown) => FieldProblem[] | Promise<FieldProblem[]>;
  /** Successful responses by status. */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  /** Error statuses this route can answer besides 400/401/500, for the document. */
  errors?: number[];
  handler: (ctx: Context, input: RouteInput<P, Q, B>) => Promise<RouteResponse> | RouteResponse;
}

export function defineRoute<
  P extends AnyObject | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}

/** One problem per bad field: unknown keys are listed one by one, zod's vaguer messages made plain. */
function problems(location: string, error: z.ZodError): FieldProblem[] {
  const at = (path: PropertyKey[]) => [location, ...path.map(String)].join('.');
  return error.issues.flatMap((issue): FieldProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: at([...issue.path, key]), message: 'unknown field' }));
    }
    return [{ path: at(issue.path), message: plainMessage(issue) }];
  });
}

function plainMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return 'required';
  // A discriminated union's unknown tag has no branch errors; zod's own message names the options.
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // A union of plain types (metadata values): name the types instead of zod's "Invalid input".
    const expected = issue.errors.flatMap((branch) =>
      branch.flatMap((i) => (i.code === 'invalid_type' && i.path.length === 0 ? [i.expected] : [])),
    );
    if (expected.length === issue.errors.length) return `must be one of the types: ${expected.join(', ')}`;
  }
  return issue.message;
}

/**
 * A request body that the JSON body parser left unread (no or a non-JSON content type). Routes with
 * a JSON body answer 415 rather than validating an empty object and blaming missing fields.
 */
function hasUnparsedBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  const sent = ctx.get('Transfer-Encoding') !== '' || (length !== '' && length !== '0');
  return sent && ctx.request.rawBody === undefined;
}

/** Where and behind what `mountRoutes` registers an area's routes. */
export interface MountOptions {
  /** Prepended to each route's path, e.g. `/admin/v1`. */
  prefix?: string;
  /** Runs in order before each route's validation (auth, rate limit); only for requests a route matched. */
  middleware?: Middleware[];
}

/**
 * Registers each route on the router with validation in front of its handler. An area's middleware
 * is chained into each route's own handler here, once, rather than registered with `router.use`: one
 * flat router then matches a request against route layers only and composes nothing per request.
 */
export function mountRoutes(router: Router, routes: RouteDef[], options: MountOptions = {}): void {
  const prefix = options.prefix ?? '';
  const middleware = options.middleware ?? [];
  for (const route of routes) {
    router[route.method](prefix + route.path, chain(middleware, validated(route)));
  }
}

/** `middleware[0]` → … → `handler`, built at mount time. */
function chain(middleware: Middleware[], handler: Middleware): Middleware {
  return middleware.reduceRight<Middleware>(
    (inner, outer) => (ctx, next) => outer(ctx, () => inner(ctx, next)),
    handler,
  );
}

function validated(route: RouteDef): Middleware {
  return async (ctx) => {
    if (route.body !== undefined && hasUnparsedBody(ctx)) {
      throw new AppError(415, 'unsupported_media_type', 'send the body as application/json');
    }
    const found: FieldProblem[] = [];
    const parse = (schema: z.ZodType, value: unknown, location: string): unknown => {
      const result = schema.safeParse(value);
      if (result.success) return result.data;
      found.push(...problems(location, result.error));
      return undefined;
    };
    const params = route.params === undefined ? {} : parse(route.params, ctx.params, 'params');
    const query = route.query === undefined ? {} : parse(route.query, ctx.query, 'query');
    const sent: unknown = ctx.request.body ?? {};
    const body = route.body === undefined ? undefined : parse(route.body, sent, 'body');
    for (const problem of (await route.bodyProblems?.(sent)) ?? []) {
      if (!found.some((f) => f.path === problem.path)) found.push(problem);
    }
    if (found.length > 0) throw new ValidationError(found);
    const result = await route.handler(ctx, { params, query, body } as RouteInput<AnyObject, AnyObject, z.ZodType>);
    if (result.headers !== undefined) for (const [name, value] of Object.entries(result.headers)) ctx.set(name, value);
    ctx.status = result.status ?? 200;
    if (result.body !== undefined) ctx.body = result.body;
  };
}

const errorDescriptions: Record<number, string> = {
  400: 'Validation failed; `details` lists every bad field',
  401: 'Missing or invalid credentials',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  429: 'Rate limit exceeded',
  500: 'Internal error',
  502: 'Upstream (language model or webhook) failed',
  503: 'Unavailable: `store_unavailable` (with `Retry-After`) while Redis cannot be reached, or a capability this server has not configured',
};

/** The OpenAPI paths object for routes mounted under `prefix`. */
export function openApiPaths(prefix: string, routes: RouteDef[], security: { admin: boolean }): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = prefix + route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const statuses = new Set<number>([500, ...(route.errors ?? [])]);
    if (route.params || route.query || route.body) statuses.add(400);
    if (route.body) statuses.add(415);
    if (security.admin) statuses.add(401);
    // Every route of an area (Admin, SDK, telephony) reads or writes Redis: an outage answers 503.
    if (prefix !== '') statuses.add(503);
    const responses: Record<`${1 | 2 | 3 | 4 | 5}${string}`, ZodOpenApiResponseObject> = {};
    for (const [status, res] of Object.entries(route.responses)) {
      responses[status as `2${string}`] =
        res.schema === undefined
          ? { description: res.description }
          : {
              description: res.description,
              content: { [res.contentType ?? 'application/json']: { schema: res.schema } },
            };
    }
    for (const status of [...statuses].sort()) {
      responses[`${status}` as `4${string}`] = {
        description: errorDescriptions[status] ?? 'Error',
        content: { 'application/json': { schema: errorBodySchema } },
      };
    }
    const operation: ZodOpenApiOperationObject = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      responses,
      ...(security.admin ? { security: [{ adminApiKey: [] }] } : {}),
      ...(route.params || route.query
        ? {
            requestParams: {
              ...(route.params ? { path: route.params } : {}),
              ...(route.query ? { query: route.query } : {}),
            },
          }
        : {}),
      ...(route.body ? { requestBody: { content: { 'application/json': { schema: route.body } } } } : {}),
      ...(route.documentedBody
        ? {
            requestBody: {
              content: Object.fromEntries(
                Object.entries(route.documentedBody).map(([type, schema]) => [type, { schema }]),
              ),
            },
          }
        : {}),
    };
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation };
  }
  return paths;
}
