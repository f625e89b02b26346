/**
 * A voice session on the real recogniser end to end: flite speech over the WebSocket transport at
 * real-time pace, the real Silero VAD, pocketsphinx decoding while the user speaks, the operator's
 * webhook as a real HTTP server. And one session whose decoder fails: that turn alone fails,
 * recorded, and the session keeps listening while another session on the same decoders is heard.
 */
import { describe, expect, it } from 'vitest';
import { fliteScript } from '../support/flite-speech.js';
import { voiceBed } from '../support/voice-bed.js';
import { wordErrorRate } from '../support/wer.js';

const bed = voiceBed();

/** `only`: the phrases are a grammar (`expected_phrases_only`), else they boost the language model. */
async function session(expectedPhrases?: string[], only = true) {
  const stt = { provider: 'pocketsphinx', model: 'en-us', language: 'en-US' };
  const agent = await bed.agent(
    { name: 'offline speech', stt },
    {
      name: 'offline',
      greeting: null,
      ...(expectedPhrases ? { expected_phrases: expectedPhrases, expected_phrases_only: only } : {}),
    },
  );
  return bed.connect(agent);
}

const transcriptsOf = (sessionId: string) => bed.transcripts(sessionId);

describe('voice on pocketsphinx (real speech, real recogniser)', () => {
  it('the webhook gets the words, decoded while they were spoken', async () => {
    const said = ['i would like to book a table for four people on friday evening', 'what time do you open tomorrow'];
    const { client, sessionId } = await session();
    await client.stream({ samples: fliteScript('slt', 300, said[0]!, 1500, said[1]!, 1500), sampleRate: 16_000 });
    await client.untilAnswer(2, 30_000);
    const heard = transcriptsOf(sessionId);
    expect(heard).toHaveLength(2);
    expect(wordErrorRate(said.map((s, i) => ({ said: s, heard: heard[i]! })))).toBeLessThanOrEqual(0.25);
    // the captions carry the recogniser's words too
    expect(client.eventsOf('transcript').map((e) => e.text)).toEqual(heard);
  });

  it('expected phrases make a rare word heard, and words off the list are heard too', async () => {
    // without the phrases: "i want to cancel my zen yes the subscription"; zendesk is not in the dictionary
    const said = ['i want to cancel my zendesk subscription', 'what time do you open tomorrow'];
    const { client, sessionId } = await session(['zendesk', 'lipitor', 'salesforce'], false);
    await client.stream({ samples: fliteScript('slt', 300, said[0]!, 1500, said[1]!, 1500), sampleRate: 16_000 });
    await client.untilAnswer(2, 30_000);
    const heard = transcriptsOf(sessionId);
    expect(heard[0]).toContain('zendesk');
    expect(wordErrorRate([{ said: said[1]!, heard: heard[1]! }])).toBeLessThanOrEqual(0.25);
  });

  it('a decoder failure fails that turn alone: recorded, the session keeps listening, others are heard', async () => {
    const broken = await session(['zzyzxq blorf']); // not in the dictionary: every utterance fails
    const healthy = await session();
    const speech = { samples: fliteScript('rms', 300, 'can i speak to a person please', 1500), sampleRate: 16_000 };
    await Promise.all([broken.client.stream(speech), healthy.client.stream(speech)]);
    await broken.client.untilEvent('error', 1, 30_000);
    expect(broken.client.eventsOf('error')[0]).toMatchObject({ code: 'turn_failed', reason: 'stt_error' });
    // The agent says its fallback line (espeak) for that turn.
    expect((await broken.client.untilEvent('audio_end', 1, 30_000)).turn).toBe(1);
    await healthy.client.untilAnswer(1, 30_000);
    expect(
      wordErrorRate([{ said: 'can i speak to a person please', heard: transcriptsOf(healthy.sessionId)[0]! }]),
    ).toBeLessThanOrEqual(0.3);
    const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${broken.sessionId}`);
    expect(errors.body.data[0]).toMatchObject({ type: 'stt_error' });
    expect(errors.body.data[0].message).toMatch(/pocketsphinx: the expected phrases do not compile/);
    // still listening: the next utterance fails the same way, the session is not over
    await broken.client.stream(speech);
    await broken.client.untilEvent('error', 2, 30_000);
    expect((await broken.client.untilEvent('audio_end', 2, 30_000)).turn).toBe(2);
    expect(broken.client.eventsOf('ended')).toHaveLength(0);
    expect(transcriptsOf(broken.sessionId)).toEqual([]);
  });

  it('speech a grammar hears no phrase in is not "nothing said": an stt_error with what was heard, turn_failed', async () => {
    const menu = ['i would like to book a table please', 'speak to a person'];
    const { client, sessionId } = await session(menu);
    // half a phrase, then silence: no phrase of the grammar, but words to the free language model
    await client.stream({ samples: fliteScript('slt', 300, 'i would like to book a table', 2500), sampleRate: 16_000 });
    await client.untilEvent('error', 1, 30_000);
    expect(client.eventsOf('error')[0]).toMatchObject({ code: 'turn_failed' });
    const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ type: 'stt_error', details: { provider: 'pocketsphinx' } });
    expect(errors.body.data[0].message).toMatch(
      /^pocketsphinx: the speech matches none of the expected phrases \(\d+ ms of speech; heard without them: "i would .+"\)$/,
    );
    expect(transcriptsOf(sessionId)).toEqual([]);
    // the session listens on: a phrase of the menu is heard
    await client.stream({ samples: fliteScript('slt', 'speak to a person', 1500), sampleRate: 16_000 });
    await client.untilAnswer(1, 30_000);
    expect(transcriptsOf(sessionId)).toEqual(['speak to a person']);
  });

  it('presets refuse a language pocketsphinx cannot hear, agents phrases that are not words', async () => {
    const bad = await bed.p.request('POST', '/admin/v1/presets', {
      body: { name: 'x', stt: { provider: 'pocketsphinx', model: 'en-us', language: 'de' } },
    });
    expect(bad.status).toBe(400);
    expect((bad.body.error.details as { path: string }[]).map((d) => d.path)).toContain('body.stt.language');
    const agent = await bed.p.request('POST', '/admin/v1/agents', {
      body: { name: 'x', expected_phrases: ['Yes Please', '<script>'] },
    });
    expect(agent.status).toBe(400);
    expect((agent.body.error.details as { path: string }[]).map((d) => d.path)).toEqual(['body.expected_phrases.1']);
    const good = await bed.p.request('POST', '/admin/v1/agents', {
      body: { name: 'x', expected_phrases: ['Yes Please'] },
    });
    expect(good.body.expected_phrases).toEqual(['yes please']);
    const plain = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'y' } });
    expect(plain.body.expected_phrases).toEqual([]);
    expect(plain.body.expected_phrases_only).toBe(false);
    const available = await bed.p.request('GET', '/admin/v1/presets/available');
    expect(available.body.data.find((x: { provider: string }) => x.provider === 'pocketsphinx')).toMatchObject({
      capability: 'stt',
      configured: true,
      models: ['en-us'],
    });
  });
});
