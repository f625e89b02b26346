import type { Logger } from 'pino';
import type { LlmToolCall, LlmToolDefinition } from '../providers/llm.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { ToolCallRecord } from '../schemas/conversation.js';
import type { Session } from '../schemas/session.js';
import type { Store } from '../store/store.js';
import { describeErrors, validatorFor } from '../schemas/json-schema.js';
import { builtInTools, type BuiltInTool, type TurnEnding } from './built-in.js';
import { postToolCall, type ToolFailure, type ToolResult } from './tool-call.js';
import { toolUrlProblem, type ToolSettings } from '../schemas/tool-settings.js';

/** Whose turn a tool call belongs to. */
export interface ToolContext {
  agent: StoredAgent;
  session: Session;
  channel: 'chat' | 'voice';
}

/** One finished call: what is stored (a `tool` message) and what the model is told. */
export interface ToolOutcome {
  record: ToolCallRecord;
  /** The tool message's content for the model: the result's JSON, or `{"error": …}`. */
  content: string;
  status: 'complete' | 'failed' | 'interrupted';
  /** The `tool_error` record of a failed call (null when none could be written, or not failed). */
  errorId: string | null;
  /** A completed call-control action (end_call, transfer): the turn ends with it. */
  ends?: TurnEnding | undefined;
}

export interface ToolboxDeps {
  store: Store;
  logger: Logger;
  /** PARLEY_ALLOW_HTTP_TOOLS: plain http to any host. */
  allowHttp: boolean;
}

type Entry = { kind: 'operator'; tool: ToolSettings } | { kind: 'built_in'; tool: BuiltInTool };

/**
 * The tools one agent offers the model (its operator tools and the built-in ones its settings
 * enable) and how each call runs: arguments parsed and checked against the tool's schema, then
 * POSTed to the operator (or run in-process for a built-in). Every failure comes back as an
 * outcome the model is told about, with a `tool_error` record; an abort (barge-in) is no error.
 */
export class Toolbox {
  private readonly entries = new Map<string, Entry>();

  constructor(
    agent: StoredAgent,
    private readonly deps: ToolboxDeps,
  ) {
    for (const tool of agent.tools ?? []) this.entries.set(tool.name, { kind: 'operator', tool });
    for (const tool of builtInTools(agent)) this.entries.set(tool.definition.name, { kind: 'built_in', tool });
  }

  get empty(): boolean {
    return this.entries.size === 0;
  }

  get definitions(): LlmToolDefinition[] {
    return [...this.entries.values()].map((e) =>
      e.kind === 'built_in'
        ? e.tool.definition
        : { name: e.tool.name, description: e.tool.description, parameters: e.tool.parameters },
    );
  }

  /** The phrase to say while `name` runs long, if it has one. */
  slowPhrase(name: string): string | null {
    const entry = this.entries.get(name);
    if (entry === undefined) return null;
    return (entry.kind === 'operator' ? entry.tool.slow_phrase : entry.tool.slowPhrase) ?? null;
  }

  async run(call: LlmToolCall, ctx: ToolContext, signal: AbortSignal): Promise<ToolOutcome> {
    const start = performance.now();
    const entry = this.entries.get(call.name);
    let args: unknown = call.arguments;
    let result: ToolResult;
    let url: string | null = null;
    let ends: TurnEnding | undefined;
    if (entry === undefined) {
      result = failure('unknown_tool', `there is no tool named ${call.name}`);
    } else {
      const parsed = parseArguments(call.arguments);
      args = parsed.ok ? parsed.value : call.arguments;
      const schema = entry.kind === 'operator' ? entry.tool.parameters : entry.tool.definition.parameters;
      const validate = validatorFor(schema);
      if (!parsed.ok) result = failure('bad_arguments', parsed.message);
      else if (!validate(parsed.value))
        result = failure('bad_arguments', `arguments do not match the schema: ${describeErrors(validate.errors)}`);
      else if (entry.kind === 'built_in') {
        result = await runBuiltIn(entry.tool, parsed.value, ctx, signal);
        if (result.ok) ends = entry.tool.ends?.(parsed.value);
      } else {
        url = entry.tool.url;
        const problem = toolUrlProblem(url, this.deps.allowHttp);
        result =
          problem !== null
            ? failure('network_error', `tool url ${problem}`)
            : await postToolCall(
                { url, apiKey: ctx.agent.webhook_api_key, timeoutMs: entry.tool.timeout_ms },
                {
                  session_id: ctx.session.id,
                  agent_id: ctx.agent.id,
                  call_id: call.id,
                  tool: call.name,
                  arguments: parsed.value,
                },
                signal,
              );
      }
    }
    const latencyMs = Math.round((performance.now() - start) * 100) / 100;
    const base = { call_id: call.id, name: call.name, arguments: args, latency_ms: latencyMs };
    if (result.ok) {
      return {
        record: { ...base, result: result.result },
        content: JSON.stringify(result.result),
        status: 'complete',
        errorId: null,
        ends,
      };
    }
    const error = { code: result.failure, message: result.message };
    const aborted = result.failure === 'aborted';
    const errorId = aborted ? null : await this.recordError(ctx, call, result, latencyMs, url);
    return {
      record: { ...base, error },
      content: JSON.stringify({ error: result.message }),
      status: aborted ? 'interrupted' : 'failed',
      errorId,
    };
  }

  private async recordError(
    ctx: ToolContext,
    call: LlmToolCall,
    result: ToolResult & { ok: false },
    latencyMs: number,
    url: string | null,
  ): Promise<string | null> {
    try {
      const rec = await this.deps.store.errors.record({
        type: 'tool_error',
        message: `tool ${call.name}: ${result.message}`,
        agent_id: ctx.agent.id,
        session_id: ctx.session.id,
        status_code: result.status,
        latency_ms: latencyMs,
        details: { tool: call.name, call_id: call.id, failure: result.failure, ...(url === null ? {} : { url }) },
      });
      return rec.id;
    } catch (err) {
      this.deps.logger.error({ err, agent_id: ctx.agent.id, tool: call.name }, 'could not write tool_error record');
      return null;
    }
  }
}

function failure(kind: ToolFailure, message: string): ToolResult {
  return { ok: false, failure: kind, status: null, message };
}

function parseArguments(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text === '' ? '{}' : text);
  } catch {
    return { ok: false, message: 'arguments are not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'arguments must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

async function runBuiltIn(
  tool: BuiltInTool,
  args: Record<string, unknown>,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<ToolResult> {
  try {
    return { ok: true, result: await tool.run(args, ctx, signal), status: 200 };
  } catch (err) {
    if (signal.aborted) return failure('aborted', 'aborted by the session');
    return failure('tool_failed', err instanceof Error ? err.message : String(err));
  }
}
