import { describe, expect, it } from 'vitest';
import { deepgramProblem, listenUrl, vocabulary } from '../../src/providers/deepgram/deepgram-options.js';
import { FrameError, HeardSoFar, parseFrame } from '../../src/providers/deepgram/listen-frames.js';

/** A Results frame as Deepgram sends it (the fields Parley reads, and some it does not). */
function results(transcript: string, flags: { is_final?: boolean; speech_final?: boolean; from_finalize?: boolean }) {
  return JSON.stringify({
    type: 'Results',
    channel_index: [0, 1],
    duration: 1.2,
    start: 0,
    ...flags,
    channel: { alternatives: [{ transcript, confidence: 0.97, words: [] }] },
    metadata: { request_id: 'r-1', model_info: { name: 'general-nova-3', version: 'x', arch: 'nova-3' } },
  });
}

describe("Deepgram's frames", () => {
  it('reads Results: the best alternative, interim or final, and the answer to Finalize', () => {
    expect(parseFrame(results(' Book a table. ', { is_final: false }))).toEqual({
      type: 'Results',
      transcript: 'Book a table.',
      isFinal: false,
      fromFinalize: false,
    });
    expect(parseFrame(results('For two.', { is_final: true, speech_final: true, from_finalize: true }))).toMatchObject({
      isFinal: true,
      fromFinalize: true,
    });
    // no alternative at all: no words
    const empty = JSON.stringify({ type: 'Results', is_final: true, channel: { alternatives: [] } });
    expect(parseFrame(empty)).toMatchObject({ transcript: '', isFinal: true });
  });

  it('reads Metadata; SpeechStarted, UtteranceEnd and unknown types are other', () => {
    const metadata = JSON.stringify({ type: 'Metadata', request_id: 'abc', duration: 2.5, channels: 1 });
    expect(parseFrame(metadata)).toEqual({ type: 'Metadata', requestId: 'abc', durationS: 2.5 });
    expect(parseFrame('{"type":"SpeechStarted","channel":[0],"timestamp":0.1}')).toEqual({
      type: 'other',
      name: 'SpeechStarted',
    });
    expect(parseFrame('{"type":"UtteranceEnd","channel":[0,1],"last_word_end":2.3}')).toMatchObject({
      name: 'UtteranceEnd',
    });
    expect(parseFrame('{"type":"SomethingNew"}')).toMatchObject({ type: 'other', name: 'SomethingNew' });
  });

  it('refuses what is not a Deepgram frame, saying what it got', () => {
    expect(() => parseFrame('<html>502 Bad Gateway</html>')).toThrow(FrameError);
    expect(() => parseFrame('<html>502 Bad Gateway</html>')).toThrow(/not JSON \("<html>502/);
    expect(() => parseFrame('{"channel":{}}')).toThrow(/without a type/);
    expect(() => parseFrame('[1,2]')).toThrow(/without a type/);
    expect(() => parseFrame('{"type":"Results","channel":{"alternatives":[{"text":"x"}]}}')).toThrow(
      /Results frame without a transcript/,
    );
  });

  it('builds the transcript: finals joined, the interim after them replaced, empty finals skipped', () => {
    const heard = new HeardSoFar();
    const add = (transcript: string, isFinal: boolean) =>
      heard.add({ type: 'Results', transcript, isFinal, fromFinalize: false });
    add('I want', false);
    expect(heard.partial).toBe('I want');
    expect(heard.final).toBe('');
    add('I want to book', false);
    add('I want to book a table,', true);
    add('', true);
    add('for', false);
    expect(heard.partial).toBe('I want to book a table, for');
    add('for two people.', true);
    expect(heard.final).toBe('I want to book a table, for two people.');
    expect(heard.partial).toBe(heard.final);
  });
});

describe('the /v1/listen address', () => {
  const request = { sampleRate: 16_000, model: 'nova-3', language: 'en-US', phrases: ['table for two', 'Zyxel'] };

  it("asks for linear16 mono at the pipeline's rate, interim results, punctuation, the preset's model and language", () => {
    const url = listenUrl({ url: undefined }, request);
    expect(`${url.origin}${url.pathname}`).toBe('wss://api.deepgram.com/v1/listen');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'true',
      language: 'en-US',
    });
    expect(url.searchParams.getAll('keyterm')).toEqual(['table for two', 'Zyxel']);
    expect(listenUrl({ url: undefined }, { ...request, language: null }).searchParams.has('language')).toBe(false);
  });

  it('keeps the operator address: scheme mapped to ws, path prefix, their query (the audio format stays Parley’s)', () => {
    const url = listenUrl(
      { url: 'https://gateway.example/deepgram/?smart_format=false&mip_opt_out=true&encoding=opus&model=x' },
      request,
    );
    expect(`${url.origin}${url.pathname}`).toBe('wss://gateway.example/deepgram/v1/listen');
    expect(url.searchParams.get('smart_format')).toBe('false');
    expect(url.searchParams.get('mip_opt_out')).toBe('true');
    expect(url.searchParams.getAll('encoding')).toEqual(['linear16']);
    expect(url.searchParams.getAll('model')).toEqual(['nova-3']);
    expect(listenUrl({ url: 'http://10.0.0.5:8080' }, request).href).toMatch(/^ws:\/\/10\.0\.0\.5:8080\/v1\/listen\?/);
  });

  it('turns expected phrases into keyterm for Nova-3 and single keywords for older models, at most 100', () => {
    expect(vocabulary('nova-3-medical', [' table  for two ', 'table for two', ''])).toEqual([
      ['keyterm', 'table for two'],
    ]);
    expect(vocabulary('nova-2', ['table for two', 'for here'])).toEqual([
      ['keywords', 'table'],
      ['keywords', 'for'],
      ['keywords', 'two'],
      ['keywords', 'here'],
    ]);
    expect(vocabulary('nova-3', undefined)).toEqual([]);
    const many = Array.from({ length: 150 }, (_, i) => `phrase ${i}`);
    expect(vocabulary('nova-3', many)).toHaveLength(100);
  });

  it('is configured by a key (hosted API) or an address (self-hosted), and says so otherwise', () => {
    expect(deepgramProblem({ apiKey: 'k', url: undefined })).toBeNull();
    expect(deepgramProblem({ apiKey: undefined, url: 'ws://dg.internal:8080' })).toBeNull();
    expect(deepgramProblem({ apiKey: undefined, url: undefined })).toMatch(
      /PARLEY_DEEPGRAM_API_KEY.*PARLEY_DEEPGRAM_URL/,
    );
  });
});
