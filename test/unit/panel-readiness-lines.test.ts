import { describe, expect, it } from 'vitest';
import { notReadyWords, readinessLines } from '../../src/panel/views/readiness-lines.js';

const channel = (...problems: string[]) => ({ ready: problems.length === 0, problems });
const lines = (voice: string[], chat: string[]) =>
  readinessLines({ voice: channel(...voice), chat: channel(...chat) }).map((l) => [
    l.channels.join(' '),
    l.label,
    l.ready,
    l.problems,
  ]);

describe("an agent's readiness in the panel", () => {
  it('says once what voice and chat share', () => {
    expect(lines([], [])).toEqual([['voice chat', 'Voice and chat', true, []]]);
    expect(lines(['llm: no key'], ['llm: no key'])).toEqual([['voice chat', 'Voice and chat', false, ['llm: no key']]]);
    expect(notReadyWords({ voice: channel('llm: no key'), chat: channel('llm: no key') })).toBe(
      'Voice and chat not ready (llm: no key)',
    );
  });

  it('gives a channel its own line for what is its alone', () => {
    expect(lines(['stt: no model', 'llm: no key', 'tts: no voice'], ['llm: no key'])).toEqual([
      ['voice chat', 'Voice and chat', false, ['llm: no key']],
      ['voice', 'Voice', false, ['stt: no model', 'tts: no voice']],
    ]);
    expect(lines(['stt: no model'], [])).toEqual([
      ['voice', 'Voice', false, ['stt: no model']],
      ['chat', 'Chat', true, []],
    ]);
    expect(notReadyWords({ voice: channel('stt: no model', 'llm: no key'), chat: channel('llm: no key') })).toBe(
      'Voice and chat not ready (llm: no key). Voice not ready (stt: no model)',
    );
  });

  it('keeps a channel marked not ready without a reason', () => {
    const r = { voice: { ready: false, problems: [] }, chat: { ready: true, problems: [] } };
    expect(readinessLines(r).map((l) => [l.label, l.ready])).toEqual([
      ['Voice', false],
      ['Chat', true],
    ]);
    expect(notReadyWords(r)).toBe('Voice not ready (no reason given)');
  });
});
