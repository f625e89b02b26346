import { describe, expect, it } from 'vitest';
import { callWithin, ProviderTimeout, streamWithin } from '../../src/providers/call-deadline.js';
import { guardedLlm, guardedStt, guardedTts } from '../../src/providers/guarded-providers.js';
import type { LlmProvider } from '../../src/providers/llm.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import type { StreamingSttProvider, SttProvider } from '../../src/providers/stt.js';

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

async function* drip(signal: AbortSignal, gaps: number[], seen?: { aborted: boolean }) {
  try {
    for (const [i, gap] of gaps.entries()) {
      await sleep(gap, signal);
      yield i;
    }
  } finally {
    if (seen) seen.aborted = signal.aborted;
  }
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

const limits = { firstMs: 200, gapMs: 100, totalMs: 5_000 };

describe('streamWithin: a streamed provider call under limits', () => {
  it('passes a stream that keeps within its limits', async () => {
    expect(await collect(streamWithin('p', 'speech', limits, undefined, (s) => drip(s, [0, 5, 5])))).toEqual([0, 1, 2]);
  });

  it('fails a stream that never sends its first chunk, and aborts the call', async () => {
    const seen = { aborted: false };
    const run = collect(streamWithin('p', 'speech', limits, undefined, (s) => drip(s, [60_000], seen)));
    await expect(run).rejects.toThrow(ProviderTimeout);
    await expect(run).rejects.toThrow(/p: speech timed out: sent nothing within 200 ms/);
    await sleep(10);
    expect(seen.aborted).toBe(true);
  });

  it('fails a stream that stalls after its first chunk', async () => {
    const run = collect(streamWithin('p', 'chat completion', limits, undefined, (s) => drip(s, [0, 60_000])));
    await expect(run).rejects.toThrow(/stalled: nothing for 100 ms/);
  });

  it('fails a slow drip that never stalls past a gap but runs past the whole limit', async () => {
    const gaps = Array.from({ length: 40 }, () => 20);
    const run = collect(streamWithin('p', 'speech', { ...limits, totalMs: 150 }, undefined, (s) => drip(s, gaps)));
    await expect(run).rejects.toThrow(/did not finish within 150 ms/);
  });

  it("does not count the consumer's own time against the provider", async () => {
    const out: number[] = [];
    for await (const n of streamWithin('p', 'speech', limits, undefined, (s) => drip(s, [0, 0, 0]))) {
      out.push(n);
      await sleep(150); // longer than gapMs
    }
    expect(out).toEqual([0, 1, 2]);
  });

  it("passes the caller's abort through as it is: not a timeout", async () => {
    const caller = new AbortController();
    const reason = new Error('barge-in');
    const run = collect(streamWithin('p', 'speech', limits, caller.signal, (s) => drip(s, [50, 50])));
    setTimeout(() => caller.abort(reason), 10);
    await expect(run).rejects.toBe(reason);
  });
});

describe('callWithin: a call answered at once', () => {
  it('answers within the limit, fails past it', async () => {
    expect(await callWithin('p', 'transcription', 200, undefined, async () => 'hi')).toBe('hi');
    const run = callWithin('p', 'transcription', 50, undefined, (s) => sleep(60_000, s).then(() => 'late'));
    await expect(run).rejects.toThrow(/p: transcription timed out: no answer within 50 ms/);
  });
});

describe('guarded providers: every failure is a ProviderError, and bounded', () => {
  const speechLimits = { sttTimeoutMs: 100, ttsTimeoutMs: 1_000, stallMs: 100 };

  it('STT: an answer that cannot be parsed becomes a ProviderError naming the provider', async () => {
    const stt = guardedStt(
      {
        label: 'openai',
        transcribe: async () => {
          throw new SyntaxError('Unexpected end of JSON input');
        },
      },
      speechLimits,
    );
    const run = stt.transcribe({ audio: new Int16Array(1), sampleRate: 16_000, model: 'm', language: null });
    await expect(run).rejects.toThrow(ProviderError);
    await expect(run).rejects.toThrow(/openai: transcription failed: Unexpected end of JSON input/);
  });

  it('STT: a hung transcription times out', async () => {
    const stt = guardedStt(
      { label: 'openai', transcribe: (r) => sleep(60_000, r.signal).then(() => 'late') },
      speechLimits,
    );
    await expect(
      stt.transcribe({ audio: new Int16Array(1), sampleRate: 16_000, model: 'm', language: null }),
    ).rejects.toThrow(ProviderTimeout);
  });

  it('TTS: audio that stops mid-body times out', async () => {
    const tts = guardedTts(
      {
        label: 'openai',
        synthesize: async function* (r) {
          yield { samples: new Int16Array(10), sampleRate: 24_000 };
          await sleep(60_000, r.signal);
        },
      },
      speechLimits,
    );
    await expect(collect(tts.synthesize({ text: 'hi', model: 'm', voice: 'v', speed: 1 }))).rejects.toThrow(
      /openai: speech timed out: stalled/,
    );
  });

  it('LLM: a stream that sends its first sentence and stalls times out, and so does a hung completion', async () => {
    const llm: LlmProvider = {
      label: 'openai',
      complete: (r) => sleep(60_000, r.signal).then(() => 'late'),
      stream: async function* (r) {
        yield 'Hello there. ';
        await sleep(60_000, r.signal);
      },
      streamWithTools: async function* () {
        yield { type: 'text', text: 'x' };
        throw new SyntaxError('bad SSE');
      },
    };
    const guarded = guardedLlm(llm, 100);
    const request = { model: 'm', messages: [], temperature: 0, maxTokens: 10, timeoutMs: 5_000 };
    await expect(collect(guarded.stream(request))).rejects.toThrow(/stalled: nothing for 100 ms/);
    await expect(guarded.complete({ ...request, timeoutMs: 100 })).rejects.toThrow(ProviderTimeout);
    await expect(collect(guarded.streamWithTools({ ...request, tools: [], toolChoice: 'auto' }))).rejects.toThrow(
      /openai: chat completion failed: bad SSE/,
    );
  });
});

describe('guarded STT keeps what the provider says of itself', () => {
  it('a recogniser that can hear its phrases alone (a grammar) still can, streaming or not', () => {
    const grammar: SttProvider = { label: 'pocketsphinx', phraseGrammar: true, transcribe: async () => '' };
    const streaming: StreamingSttProvider = { ...grammar, openStream: () => null };
    const limits = { sttTimeoutMs: 100, ttsTimeoutMs: 100, stallMs: 100 };
    expect(guardedStt(grammar, limits).phraseGrammar).toBe(true);
    expect(guardedStt(streaming, limits).phraseGrammar).toBe(true);
    expect(guardedStt({ label: 'openai', transcribe: async () => '' }, limits).phraseGrammar).toBeUndefined();
  });
});
