/**
 * One scenario through a real Parley: a WebSocket voice session fed at real-time pace (one 20 ms
 * frame every 20 ms, silence between the script's phrases, as a microphone would), timed from
 * the client's side: when the frame holding the speech end (or onset) was sent, when events came.
 */
import { words } from '../../test/support/wer.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { PacedMic } from '../lib/paced-mic.js';
import { VoiceClient } from '../../test/support/voice-client.js';
import { openSession } from '../lib/bench-api.js';
import { corpusRate, type Scenario } from './corpus.js';

/** What one scenario showed. */
export interface ScenarioResult {
  scenario: string;
  kind: Scenario['kind'];
  /** Utterance scenarios: the last speech frame sent → the first `audio_start` after it. */
  speech_end_to_first_audio_ms: number | null;
  /** Turns of the user answered during the scenario (distinct `transcript` turns). */
  answered_turns: number;
  /** Turns whose answer started playing (distinct `audio_start` turns): what the user heard begin. */
  answers_started: number;
  transcripts: string[];
  /** Phrases of the utterance that no transcript holds (words lost, e.g. a turn dropped when the user went on). */
  lost_phrases: number;
  /** Talked-over scenarios: whether the agent's answer was interrupted, paused, resumed. */
  interrupted: boolean | null;
  paused: boolean | null;
  resumed: boolean | null;
  /** Barge-in: onset frame sent → `playback_paused` or `interrupted`, whichever came first. */
  reaction_ms: number | null;
}

async function waitFor(test: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (test()) return true;
    await sleep(10);
  }
  return test();
}

export async function runScenario(url: string, agentToken: string, scenario: Scenario): Promise<ScenarioResult> {
  const grant = await openSession(url, agentToken);
  const client = await VoiceClient.connect(grant.connection_url, grant.connection_token, corpusRate);
  const mic = new PacedMic(client);
  try {
    await client.untilEvent('ready', 1, 10_000);
    await mic.pause(500);
    let speechEndAt = 0;
    for (const part of scenario.utterance) {
      if ('phrase' in part) speechEndAt = (await mic.say(part.phrase.samples)).endAt;
      else await mic.pause(part.pauseMs);
    }
    // speechEndAt: when the frame holding the utterance's last speech went out.
    const firstAudio = () => client.events.find((e) => e.type === 'audio_start' && e.at >= speechEndAt);
    await waitFor(() => firstAudio() !== undefined, 8_000);
    const answer = firstAudio();
    const result: ScenarioResult = {
      scenario: scenario.name,
      kind: scenario.kind,
      speech_end_to_first_audio_ms: answer === undefined ? null : answer.at - speechEndAt,
      answered_turns: 0,
      answers_started: 0,
      transcripts: [],
      lost_phrases: 0,
      interrupted: null,
      paused: null,
      resumed: null,
      reaction_ms: null,
    };
    if (scenario.over !== undefined && answer !== undefined) {
      const turn = answer['turn'];
      await sleep(1_000);
      const { onsetAt } = await mic.say(scenario.over.samples);
      await mic.pause(2_500);
      const after = client.events.filter((e) => e.at >= onsetAt && e['turn'] === turn);
      const interrupted = after.find((e) => e.type === 'interrupted');
      const paused = after.find((e) => e.type === 'playback_paused');
      result.interrupted = interrupted !== undefined;
      result.paused = paused !== undefined;
      result.resumed = after.some((e) => e.type === 'playback_resumed');
      const reaction = [interrupted, paused].filter((e) => e !== undefined).map((e) => e.at - onsetAt);
      result.reaction_ms = reaction.length === 0 ? null : Math.min(...reaction);
    } else {
      await mic.pause(2_000); // later answers (a split's second turn) still count
    }
    const transcripts = client.events.filter((e) => e.type === 'transcript');
    result.answered_turns = new Set(transcripts.map((e) => e['turn'])).size;
    result.answers_started = new Set(client.events.filter((e) => e.type === 'audio_start').map((e) => e['turn'])).size;
    result.transcripts = transcripts.map((e) => String(e['text']));
    const heard = new Set(words(result.transcripts.join(' ')));
    // a phrase is lost when under half its words were heard (a real recogniser gets some wrong)
    result.lost_phrases = scenario.utterance.filter((p) => {
      if (!('phrase' in p)) return false;
      const said = words(p.phrase.text);
      return said.filter((w) => heard.has(w)).length * 2 < said.length;
    }).length;
    return result;
  } finally {
    await mic.stop();
    client.sendJson({ type: 'end' });
    await client.untilClosed(5_000).catch(() => client.ws.terminate());
  }
}
