import { z } from 'zod';
import type { FieldProblem } from '../errors/app-errors.js';
import { httpUrlSchema, isObject } from './common.js';
import { schemaProblem } from './json-schema.js';

/** Longest a tool call may take, and the default. */
export const maxToolTimeoutMs = 60_000;
export const defaultToolTimeoutMs = 5_000;
/** Tools per agent: OpenAI accepts 128 per request; built-in actions need room beside them. */
export const maxToolsPerAgent = 64;

export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * One operator tool of an agent: what the language model is told (name, description, JSON Schema
 * parameters) and where Parley POSTs the call. Tools are per agent, not per preset: a preset picks
 * providers and is shared by agents of different businesses, while a tool (its URL, its key, what
 * it may do) belongs to one agent's job, like its webhook and system prompt.
 */
export const toolSettingsSchema = z
  .strictObject({
    name: z
      .string()
      .regex(toolNamePattern, 'letters, digits, _ and - only, at most 64')
      .meta({ description: 'What the model calls it (unique per agent), e.g. `lookup_order`.' }),
    description: z
      .string()
      .trim()
      .min(1)
      .max(1_024)
      .meta({ description: 'What it does and when to use it, for the model.' }),
    parameters: z
      .record(z.string(), z.unknown())
      .refine((s) => s['type'] === 'object', { message: 'must be a JSON Schema of `type: "object"`' })
      .superRefine((schema, ctx) => {
        const problem = schemaProblem(schema);
        if (problem !== null) ctx.addIssue({ code: 'custom', message: `invalid JSON Schema: ${problem}` });
      })
      .meta({ description: 'JSON Schema (draft-07) of the arguments, `type: "object"`; checked when saved.' }),
    url: httpUrlSchema.meta({
      description:
        'Where the call is POSTed: https, or http to a loopback address (any http with PARLEY_ALLOW_HTTP_TOOLS).',
    }),
    timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(maxToolTimeoutMs)
      .default(defaultToolTimeoutMs)
      .meta({ description: 'How long the call may take; after it the model is told the tool timed out.' }),
    slow_phrase: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .nullable()
      .default(null)
      .meta({ description: 'Spoken (voice only) when the call takes longer than a second, e.g. "One moment."' }),
  })
  .meta({ id: 'Tool' });

export type ToolSettings = z.output<typeof toolSettingsSchema>;

export const toolsSchema = z
  .array(toolSettingsSchema)
  .max(maxToolsPerAgent)
  .superRefine(
    (tools: readonly unknown[], ctx) => {
      // Runs even when some tools are bad (their problems are listed beside it): only the names
      // that parsed are compared.
      const badName = new Set(ctx.issues.flatMap(({ path = [] }) => (path[1] === 'name' ? [path[0]] : [])));
      const seen = new Set<string>();
      tools.forEach((tool, i) => {
        const name = isObject(tool) ? tool['name'] : undefined;
        if (typeof name !== 'string' || badName.has(i)) return;
        if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate tool name ${name}` });
        seen.add(name);
      });
    },
    { when: (payload) => Array.isArray(payload.value) },
  )
  .meta({
    description:
      'Operator tools the language model may call in `enhanced` mode (POSTed as `tool_call`); see the README, Tools.',
  });

const loopbackHosts = new Set(['localhost', '[::1]']);

/**
 * Why a tool URL may not be called, or null. Calls carry the agent's webhook key (Bearer) and
 * arguments taken from what the user said, so they go over https; plain http only to the machine
 * itself (a sidecar, tests) or where the operator allows it (`PARLEY_ALLOW_HTTP_TOOLS`, e.g. a
 * private network between containers).
 */
export function toolUrlProblem(url: string, allowHttp: boolean): string | null {
  const parsed = new URL(url);
  if (parsed.protocol === 'https:' || allowHttp) return null;
  const host = parsed.hostname;
  if (loopbackHosts.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return null;
  return 'must be https (http only to a loopback address, unless PARLEY_ALLOW_HTTP_TOOLS is set)';
}

/**
 * The `body.tools.N.url` problems of an agent body as sent (parsed or not): each well-formed http(s)
 * URL that may not be called here. They depend on `allowHttp` (the server's configuration), so the
 * route reports them beside the schema's own problems in one 400 `validation_error` (malformed URLs
 * are the schema's).
 */
export function toolUrlProblems(body: unknown, allowHttp: boolean): FieldProblem[] {
  const tools = isObject(body) ? body['tools'] : undefined;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown, i) => {
    const url = httpUrlSchema.safeParse(isObject(tool) ? tool['url'] : undefined);
    const problem = url.success ? toolUrlProblem(url.data, allowHttp) : null;
    return problem === null ? [] : [{ path: `body.tools.${i}.url`, message: problem }];
  });
}
