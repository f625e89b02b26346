import { textTurn, type TurnOutcome } from './turn-outcome.js';
import type { VoiceClient } from './voice-client.js';

/** One turn of a control call. */
export interface ControlTurn {
  call: number;
  text: string;
  outcome: TurnOutcome;
  seen: string[];
}

/**
 * Healthy calls that keep talking on the same server while faults are injected elsewhere: each
 * sends a typed turn, waits for it to be answered (captioned and played), pauses, and goes again,
 * until `stop`. Every turn is kept, so a test can assert that all were answered.
 */
export class ControlCalls {
  readonly turns: ControlTurn[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(
    readonly clients: VoiceClient[],
    private readonly options: { pauseMs: number; answerWithinMs: number },
  ) {
    this.loops = clients.map((client, call) => this.loop(client, call));
  }

  /** Ends the loops after their turn in flight. */
  async stop(): Promise<ControlTurn[]> {
    this.running = false;
    await Promise.all(this.loops);
    return this.turns;
  }

  /** The turns that were not answered. */
  unanswered(): ControlTurn[] {
    return this.turns.filter((t) => t.outcome !== 'answered');
  }

  private async loop(client: VoiceClient, call: number): Promise<void> {
    for (let n = 1; this.running; n++) {
      const text = `control ${call} turn ${n}`;
      const result = await textTurn(client, text, this.options.answerWithinMs);
      this.turns.push({ call, text, outcome: result.outcome, seen: result.seen });
      if (result.outcome === 'closed') return;
      await new Promise((r) => setTimeout(r, this.options.pauseMs));
    }
  }
}
