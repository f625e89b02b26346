import { builtInActions } from '../actions/built-in-actions.js';
import type { CallAction } from '../actions/call-action.js';
import type { LlmToolDefinition } from '../providers/llm.js';
import type { StoredAgent } from '../records/agent.js';
import type { ToolContext } from './toolbox.js';

/** What a built-in that ends the turn asks for: words to say last, then the call-control action. */
export interface TurnEnding {
  say: string;
  action: CallAction;
}

/**
 * A tool Parley itself implements (end_call, transfer), offered to the model beside the
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
  /** For a call-control action: the turn ends with these words and this action (no more rounds). */
  ends?: ((args: Record<string, unknown>) => TurnEnding) | undefined;
}

/**
 * The built-in tools an agent offers, by its settings: the call-control actions of src/actions
 * (`end_call` when `end_call_enabled`, `transfer` when `transfer_enabled`, enhanced mode only).
 * A built-in tool's name wins over an operator tool of the same name.
 */
export function builtInTools(agent: StoredAgent): BuiltInTool[] {
  return builtInActions(agent).map((action) => {
    const { name, description = '', parameters = {} } = action.definition.function;
    return {
      definition: { name, description, parameters },
      run: (args) => Promise.resolve(action.handle(args).result),
      ends: (args) => {
        const { say, action: asked } = action.handle(args);
        return { say, action: asked };
      },
    };
  });
}
