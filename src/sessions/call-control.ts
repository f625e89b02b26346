import type { CallAction } from '../actions/call-action.js';

/**
 * The call control asked for during a voice session's current turn. The answer stage reports it
 * (`request`, only while its turn is live); the turn, once its answer has played, takes it and
 * tells the session machine (ACT). Each turn starts with none, so an action of a turn cut by
 * barge-in never outlives it.
 */
export class CallControl {
  private pending: CallAction | null = null;

  /** A new turn starts: nothing is asked yet. */
  reset(): void {
    this.pending = null;
  }

  /** The answer asked for `action` (the last one asked wins). */
  request(action: CallAction): void {
    this.pending = action;
  }

  /** The action asked for in this turn, if any, cleared. */
  take(): CallAction | null {
    const action = this.pending;
    this.pending = null;
    return action;
  }
}
