import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { CallAction } from '../actions/call-action.js';
import type { LlmToolDefinition } from '../providers/llm.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { ToolContext } from './toolbox.js';

/**
 * The tools Parley itself implements: the call-control actions an enhanced-mode agent's LLM may
 * call, as OpenAI tools beside the operator's own (toolbox.ts): `end_call` when
 * `end_call_enabled`, `transfer` when `transfer_enabled`. The tool loop's contract with them:
 * - offer `definition` to the model with the operator's tools (the names are reserved);
 * - on a call, `handle(arguments)` (never throws: bad arguments are read leniently);
 * - speak `say` (the closing words; may be empty) as the end of this turn's answer, report
 *   `action` through the turn's `onAction` (the session carries it out once the words have played:
 *   src/sessions/perform-action.ts, or the chat reply ends the session), and end the turn's tool
 *   rounds: the model is not called again, and `result` is what the stored tool-call record shows.
 */
export interface BuiltInAction {
  name: 'end_call' | 'transfer';
  definition: ChatCompletionFunctionTool;
  handle(args: unknown): BuiltInOutcome;
}

export interface BuiltInOutcome {
  action: CallAction;
  /** What to say before acting ('' for nothing). */
  say: string;
  /** The tool result (JSON) for the model and the records. */
  result: Record<string, unknown>;
}

export const builtInActionNames = ['end_call', 'transfer'] as const;

const endCallArgs = z.object({ closing_words: z.string().max(1_000).optional().catch(undefined) }).catch({});
const transferArgs = z
  .object({
    reason: z.string().max(1_000).optional().catch(undefined),
    closing_words: z.string().max(1_000).optional().catch(undefined),
  })
  .catch({});

const endCall: BuiltInAction = {
  name: 'end_call',
  definition: {
    type: 'function',
    function: {
      name: 'end_call',
      description:
        'End the call. Use it when the user says goodbye or the conversation is complete. Put what you say last (a short goodbye) in closing_words; the call ends after it is spoken.',
      parameters: {
        type: 'object',
        properties: {
          closing_words: { type: 'string', description: 'Your last words to the user, spoken before hanging up.' },
        },
        additionalProperties: false,
      },
    },
  },
  handle(args) {
    const { closing_words: say = '' } = endCallArgs.parse(args);
    return {
      action: { type: 'end_call' },
      say: say.trim(),
      result: { ok: true, status: 'the call ends after your closing words' },
    };
  },
};

function transfer(agent: StoredAgent): BuiltInAction {
  return {
    name: 'transfer',
    definition: {
      type: 'function',
      function: {
        name: 'transfer',
        description:
          'Transfer the caller to a human colleague. Use it when the user asks for a person or you cannot help. Say what happens next in closing_words.',
        parameters: {
          type: 'object',
          properties: {
            reason: { type: 'string', description: 'Why the caller is transferred (kept in the records).' },
            closing_words: { type: 'string', description: 'What you tell the caller before the transfer.' },
          },
          additionalProperties: false,
        },
      },
    },
    handle(args) {
      const { reason = null, closing_words: say = '' } = transferArgs.parse(args);
      // The destination is the operator's (transfer_to), never the model's choice.
      return {
        action: { type: 'transfer', to: agent.transfer_to },
        say: say.trim(),
        result: { ok: true, status: 'the caller is transferred after your closing words', reason },
      };
    },
  };
}

/** The built-in actions the agent enables (none in passthrough mode: its webhook decides there). */
export function builtInActions(agent: StoredAgent): BuiltInAction[] {
  if (agent.mode !== 'enhanced') return [];
  const actions: BuiltInAction[] = [];
  if (agent.end_call_enabled) actions.push(endCall);
  if (agent.transfer_enabled) actions.push(transfer(agent));
  return actions;
}

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
 * The built-in tools an agent offers, by its settings: its built-in actions above (`end_call` when
 * `end_call_enabled`, `transfer` when `transfer_enabled`, enhanced mode only) in the toolbox's shape.
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
