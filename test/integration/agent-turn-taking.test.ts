import { describe, expect, it } from 'vitest';
import { parleyForFile } from '../support/parley.js';

/** The turn-taking settings of the agent record through the Admin API (README "Turn-taking"). */
const bed = parleyForFile();

const defaults = {
  endpointing_mode: 'smart',
  transcription_silence_ms: 64,
  preemptive_silence_ms: 200,
  endpointing_punctuation_ms: 300,
  endpointing_number_ms: 1_200,
  endpointing_max_ms: 1_500,
  endpointing_default_ms: 1_000,
  smart_turn_threshold: 0.5,
  statement_end_threshold: -1.5,
  statement_end_pitch: true,
  stop_words: ['stop', 'wait', 'hold on'],
};

describe('turn-taking settings', () => {
  it('are filled with their defaults, PATCH-able, and validated with a 400 naming each bad field', async () => {
    const created = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'turns' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(defaults);
    expect(created.body.backchannel_words).toEqual(
      expect.arrayContaining(['okay', 'uh-huh', 'mm-hmm', 'yeah', 'right']),
    );

    const path = `/admin/v1/agents/${created.body.id}`;
    const patched = await bed.p.request('PATCH', path, {
      body: {
        endpointing_mode: 'silence',
        transcription_silence_ms: 96,
        preemptive_silence_ms: 160,
        endpointing_number_ms: 2_000,
        smart_turn_threshold: 0.7,
        statement_end_threshold: null,
        statement_end_pitch: false,
        backchannel_words: ['  Uh-Huh ', 'alright'],
        stop_words: ['enough'],
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      endpointing_mode: 'silence',
      transcription_silence_ms: 96,
      preemptive_silence_ms: 160,
      endpointing_number_ms: 2_000,
      smart_turn_threshold: 0.7,
      statement_end_threshold: null,
      statement_end_pitch: false,
      backchannel_words: ['uh-huh', 'alright'],
      stop_words: ['enough'],
    });
    expect((await bed.p.request('GET', path)).body).toMatchObject({ endpointing_mode: 'silence' });

    const bad = await bed.p.request('PATCH', path, {
      body: {
        endpointing_mode: 'psychic',
        transcription_silence_ms: 0,
        preemptive_silence_ms: 10,
        endpointing_max_ms: -1,
        endpointing_default_ms: 1.5,
        smart_turn_threshold: 1.2,
        statement_end_threshold: 0.5,
        statement_end_pitch: 'yes',
        backchannel_words: [''],
        stop_words: 'stop',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const paths = (bad.body.error.details as { path: string }[]).map((d) => d.path.split('.')[1]);
    expect(new Set(paths)).toEqual(
      new Set([
        'endpointing_mode',
        'transcription_silence_ms',
        'preemptive_silence_ms',
        'endpointing_max_ms',
        'endpointing_default_ms',
        'smart_turn_threshold',
        'statement_end_threshold',
        'statement_end_pitch',
        'backchannel_words',
        'stop_words',
      ]),
    );
  });

  it('are in /openapi.json, in the agent and its create and patch bodies', async () => {
    const doc = (await bed.p.request('GET', '/openapi.json', { apiKey: null })).body as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    for (const schema of ['Agent', 'AgentCreate', 'AgentPatch'])
      for (const field of [...Object.keys(defaults), 'backchannel_words'])
        expect(doc.components.schemas[schema]!.properties, `${schema}.${field}`).toHaveProperty(field);
  });
});
