import type { LlmToolDefinition } from '../providers/llm.js';
import type { StoredAgent } from '../records/agent.js';
import type { ToolContext } from './toolbox.js';

/**
 * A tool Parley itself implements (end_call, transfer, …), offered to the model beside the
 * operator's tools and recorded the same way (a `tool` message, a `tool_call` event).
 */
export interface BuiltInTool {
  definition: LlmToolDefinition;
  /** Spoken while the call runs longer than a second (voice), like an operator tool's `slow_phrase`. */
  slowPhrase?: string | null | undefined;
  /**
   * Runs the call with arguments already checked against `definition.parameters`; what it returns
   * is fed back to the model as the tool's result. Throwing makes it a failed call the model is
   * told about (and an error record). `signal` aborts on barge-in.
   */
  run(args: Record<string, unknown>, ctx: ToolContext, signal: AbortSignal): Promise<unknown>;
}

/**
 * The built-in tools an agent offers, by its settings. The seam for built-in actions: none yet;
 * the actions (end_call, transfer) register here, each enabled by its agent setting. A built-in
 * tool's name wins over an operator tool of the same name.
 */
export function builtInTools(_agent: StoredAgent): BuiltInTool[] {
  return [];
}
