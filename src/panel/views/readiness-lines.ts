import type { AgentReadiness } from '../api/types.js';

type Channel = 'voice' | 'chat';

/** One line of an agent's readiness: the channels it is about, whether they are ready, and why not. */
export interface ReadinessLine {
  channels: Channel[];
  /** `Voice and chat`, `Voice` or `Chat`. */
  label: string;
  ready: boolean;
  problems: string[];
}

const names: [Channel, string][] = [
  ['voice', 'Voice'],
  ['chat', 'Chat'],
];

/**
 * Voice and chat readiness, each problem said once: what both channels share is one `Voice and
 * chat` line (chat's problems are usually a part of voice's: voice needs STT and TTS besides),
 * and a channel gets its own line only for what is its alone, or when the other is ready.
 */
export function readinessLines(r: AgentReadiness): ReadinessLine[] {
  const shared = r.voice.problems.filter((p) => r.chat.problems.includes(p));
  const own = (c: Channel) => r[c].problems.filter((p) => !shared.includes(p));
  if (r.voice.ready === r.chat.ready && own('voice').length === 0 && own('chat').length === 0)
    return [{ channels: ['voice', 'chat'], label: 'Voice and chat', ready: r.voice.ready, problems: shared }];
  const lines: ReadinessLine[] = [];
  if (shared.length > 0)
    lines.push({ channels: ['voice', 'chat'], label: 'Voice and chat', ready: false, problems: shared });
  for (const [c, label] of names) {
    if (own(c).length > 0 || shared.length === 0)
      lines.push({ channels: [c], label, ready: r[c].ready, problems: own(c) });
  }
  return lines;
}

/** The lines that are not ready, in a sentence each: `Voice and chat not ready (llm: …)`. */
export function notReadyWords(r: AgentReadiness): string {
  return readinessLines(r)
    .filter((l) => !l.ready)
    .map((l) => `${l.label} not ready (${l.problems.join('; ') || 'no reason given'})`)
    .join('. ');
}
