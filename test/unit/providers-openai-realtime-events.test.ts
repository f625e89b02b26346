import { describe, expect, it } from 'vitest';
import {
  appendAudio,
  describeRealtimeError,
  parseServerEvent,
  sessionUpdate,
} from '../../src/providers/openai-realtime/realtime-events.js';
import { transcriptionSettings } from '../../src/providers/openai-realtime/realtime-stt.js';

const base = { sampleRate: 16_000, model: 'gpt-4o-mini-transcribe' };

describe('openai-realtime: the session settings a preset and an agent make', () => {
  it("takes the language's primary subtag (the API takes ISO 639-1), and none when the preset has none", () => {
    expect(transcriptionSettings({ ...base, language: 'en-US' })).toEqual({
      model: 'gpt-4o-mini-transcribe',
      language: 'en',
      prompt: null,
    });
    expect(transcriptionSettings({ ...base, language: 'DE' }).language).toBe('de');
    expect(transcriptionSettings({ ...base, language: null }).language).toBeNull();
  });

  it('puts the expected phrases in the prompt, whole phrases up to 800 characters', () => {
    expect(transcriptionSettings({ ...base, language: null, phrases: ['yes please', 'no thanks'] }).prompt).toBe(
      'yes please, no thanks',
    );
    const many = Array.from({ length: 200 }, (_, i) => `phrase number ${i}`);
    const prompt = transcriptionSettings({ ...base, language: null, phrases: many }).prompt!;
    expect(prompt.length).toBeLessThanOrEqual(800);
    expect(prompt.length).toBeGreaterThan(750);
    expect(prompt.split(', ').every((p, i) => p === many[i])).toBe(true);
    expect(transcriptionSettings({ ...base, language: null, phrases: [] }).prompt).toBeNull();
  });

  it('configures a transcription session: 24 kHz PCM, server VAD off, only the fields it has', () => {
    expect(JSON.parse(sessionUpdate({ model: 'whisper-1', language: null, prompt: null }))).toEqual({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'whisper-1' },
            turn_detection: null,
          },
        },
      },
    });
  });

  it('appends PCM16 little-endian, base64, from a view without copying the rest of its buffer', () => {
    const whole = Int16Array.from([1, -2, 300, 0x7fff]);
    const sent = JSON.parse(appendAudio(whole.subarray(1, 3))) as { type: string; audio: string };
    expect(sent.type).toBe('input_audio_buffer.append');
    expect([...Buffer.from(sent.audio, 'base64')]).toEqual([0xfe, 0xff, 0x2c, 0x01]);
  });
});

describe('openai-realtime: the server events it reads', () => {
  it('reads the transcription events, their item and text', () => {
    expect(
      parseServerEvent('{"type":"input_audio_buffer.committed","item_id":"item_1","previous_item_id":null}'),
    ).toEqual({ type: 'input_audio_buffer.committed', item_id: 'item_1' });
    expect(
      parseServerEvent(
        '{"type":"conversation.item.input_audio_transcription.delta","item_id":"item_1","content_index":0,"delta":"Hel"}',
      ),
    ).toEqual({ type: 'conversation.item.input_audio_transcription.delta', item_id: 'item_1', delta: 'Hel' });
    expect(
      parseServerEvent(
        '{"type":"conversation.item.input_audio_transcription.completed","item_id":"item_1","transcript":"Hello."}',
      ),
    ).toEqual({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'item_1',
      transcript: 'Hello.',
    });
    expect(parseServerEvent('{"type":"conversation.item.added","item":{}}')).toEqual({ type: 'other' });
  });

  it('reads errors with or without a code, and refuses what is not an event', () => {
    const error = parseServerEvent(
      '{"type":"error","event_id":"e1","error":{"type":"invalid_request_error","code":"input_audio_buffer_commit_empty","message":"buffer too small","param":null}}',
    );
    expect(error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'input_audio_buffer_commit_empty', message: 'buffer too small' },
    });
    expect(describeRealtimeError({ type: 'server_error', code: null, message: 'boom' })).toBe('server_error (boom)');
    expect(describeRealtimeError({})).toBe('error');
    for (const garbage of [
      'not json',
      '42',
      'null',
      '{"no":"type"}',
      '{"type":"conversation.item.input_audio_transcription.completed"}',
    ])
      expect(parseServerEvent(garbage), garbage).toBeNull();
  });
});
