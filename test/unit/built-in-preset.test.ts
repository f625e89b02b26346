import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { providers as catalog } from '../../src/schemas/provider-catalog.js';
import { createLogger } from '../../src/logging/logger.js';
import { builtInOrder, chooseBuiltIn } from '../../src/providers/built-in/built-in-preset.js';
import { logCapabilities } from '../../src/providers/built-in/capability-log.js';
import { Usability } from '../../src/providers/built-in/usability.js';
import type { ProviderAvailability } from '../../src/providers/registry.js';

/** Every catalog provider, usable only when named in `usable` (local ones with their first model). */
function box(...usable: string[]): Usability {
  return new Usability(
    catalog.map((info): ProviderAvailability => {
      const on = usable.includes(`${info.capability}:${info.provider}`);
      return {
        capability: info.capability,
        provider: info.provider,
        label: info.label,
        kind: info.kind,
        models: [...info.models],
        default_model: info.defaultModel,
        voices: [...info.voices],
        default_voice: info.defaultVoice,
        any_model: info.anyModel,
        local_models: [],
        configured: on,
        reason: on ? null : `${info.provider} is missing (fix it)`,
      };
    }),
  );
}

describe('the built-in preset', () => {
  it('takes the first usable provider per capability, in the documented order', () => {
    expect(builtInOrder).toEqual({
      stt: ['local-whisper', 'openai', 'pocketsphinx'],
      llm: ['openai', 'local-llama'],
      tts: ['local-vits', 'openai', 'flite', 'espeak'],
    });
    const debian = chooseBuiltIn(box('stt:pocketsphinx', 'tts:flite', 'tts:espeak'));
    expect(debian.stt).toEqual({ provider: 'pocketsphinx', model: 'en-us', language: null });
    expect(debian.tts).toEqual({ provider: 'flite', model: 'flite', voice: 'slt', speed: 1 });
    expect(debian.choices.stt).toEqual({ provider: 'pocketsphinx', model: 'en-us', usable: true, problem: null });

    const withOpenAi = chooseBuiltIn(box('stt:openai', 'llm:openai', 'tts:openai', 'stt:pocketsphinx', 'tts:flite'));
    expect([withOpenAi.stt.provider, withOpenAi.llm.provider, withOpenAi.tts.provider]).toEqual([
      'openai',
      'openai',
      'openai',
    ]);
    expect(withOpenAi.tts.voice).toBe('alloy');

    const models = chooseBuiltIn(
      box('stt:local-whisper', 'stt:pocketsphinx', 'llm:local-llama', 'tts:local-vits', 'tts:espeak'),
    );
    expect(models.stt).toMatchObject({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en' });
    expect(models.llm).toMatchObject({ provider: 'local-llama', model: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF' });
    expect(models.tts).toMatchObject({ provider: 'local-vits', voice: 'default' });
  });

  it('keeps the first of the order when none is usable, saying every reason', () => {
    const bare = chooseBuiltIn(box('tts:espeak'));
    expect(bare.llm.provider).toBe('openai');
    expect(bare.choices.llm.usable).toBe(false);
    expect(bare.choices.llm.problem).toBe(
      'no llm provider is usable here: openai: openai is missing (fix it); local-llama: local-llama is missing (fix it)',
    );
    expect(bare.choices.stt).toMatchObject({ provider: 'local-whisper', usable: false });
    expect(bare.choices.stt.problem).toContain('pocketsphinx: pocketsphinx is missing (fix it)');
    expect(bare.choices.tts).toEqual({ provider: 'espeak', model: 'espeak-ng', usable: true, problem: null });
  });
});

describe('usability of a preset section', () => {
  const usability = new Usability([
    ...box('stt:pocketsphinx').available.filter((a) => a.provider !== 'local-whisper' && a.provider !== 'espeak'),
    {
      ...box('stt:local-whisper').of('stt', 'local-whisper')!,
      models: ['Xenova/whisper-tiny.en'],
    },
    { ...box('tts:espeak').of('tts', 'espeak')!, voices: ['en-us', 'de'] },
  ]);

  it('names the provider and the fix', () => {
    expect(usability.problem('stt', { provider: 'pocketsphinx', model: 'en-us' })).toBeNull();
    expect(usability.problem('llm', { provider: 'openai', model: 'gpt-4o-mini' })).toBe(
      'openai: openai is missing (fix it)',
    );
    expect(usability.problem('stt', { provider: 'local-whisper', model: 'Xenova/whisper-small' })).toBe(
      'local-whisper: model Xenova/whisper-small is not installed (installed: Xenova/whisper-tiny.en; npm run models downloads the others)',
    );
    expect(usability.problem('tts', { provider: 'espeak', model: 'espeak-ng', voice: 'fr' })).toBe(
      'espeak: voice fr is not installed (installed: en-us, de)',
    );
    expect(usability.problem('tts', { provider: 'espeak', model: 'espeak-ng', voice: 'de' })).toBeNull();
  });
});

describe('the start-up lines', () => {
  const localEmbeddings = { provider: 'local', model: 'Xenova/all-MiniLM-L6-v2' } as Config['rag']['embedding'];

  /** The JSON lines logCapabilities writes at `debug`, as {level, msg, fields}. */
  function lines(usability: Usability, embedding = localEmbeddings) {
    const written: string[] = [];
    const logger = createLogger('debug', 'json', { write: (t: string) => written.push(t) });
    logCapabilities(logger, chooseBuiltIn(usability), usability, embedding);
    return written.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  const said = (usability: Usability, embedding = localEmbeddings) =>
    lines(usability, embedding)
      .filter((l) => l['level'] !== 20)
      .map((l) => l['msg']);

  it('name what is used, one short line per capability', () => {
    const all = box('stt:local-whisper', 'llm:local-llama', 'tts:flite', 'embeddings:local');
    expect(said(all)).toEqual([
      'stt: local-whisper (Xenova/whisper-tiny.en) for the built-in preset',
      'llm: local-llama (Qwen/Qwen2.5-0.5B-Instruct-GGUF) for the built-in preset',
      'tts: flite (flite) for the built-in preset',
      'embeddings: local (Xenova/all-MiniLM-L6-v2) for RAG',
    ]);
    expect(lines(all)[1]).toMatchObject({ level: 30, capability: 'llm', provider: 'local-llama' });
  });

  it('say what cannot work and the fixes of the first two providers in the order, naming no provider as used', () => {
    const bare = box();
    expect(said(bare)).toEqual([
      'stt: nothing usable (voice sessions cannot hear); fix: npm run models, or set OPENAI_API_KEY or OPENAI_BASE_URL',
      'llm: nothing usable (enhanced mode cannot answer); fix: set OPENAI_API_KEY or OPENAI_BASE_URL, or npm run models',
      'tts: nothing usable (voice sessions cannot speak); fix: npm run models, or set OPENAI_API_KEY or OPENAI_BASE_URL',
      'embeddings: not usable (RAG searches documents by their words only); fix: npm run models',
    ]);
    const warnings = lines(bare).filter((l) => l['level'] === 40);
    expect(warnings).toHaveLength(4);
    for (const l of warnings) {
      expect(Object.keys(l).sort()).toEqual(['capability', 'level', 'msg', 'service', 'time']);
      expect((l['msg'] as string).length).toBeLessThanOrEqual(120);
    }
    // Each capability's full reason is there at debug level.
    expect(lines(bare).find((l) => l['level'] === 20 && l['capability'] === 'llm')!['problem']).toContain(
      'local-llama: local-llama is missing (fix it)',
    );
  });

  it("name the deployment's embedding fix: the key for openai, placing a model the catalog does not know", () => {
    const openai = { provider: 'openai', model: 'text-embedding-3-small' } as Config['rag']['embedding'];
    expect(said(box(), openai).at(-1)).toBe(
      'embeddings: not usable (RAG searches documents by their words only); fix: set OPENAI_API_KEY or OPENAI_BASE_URL',
    );
    const own = { provider: 'local', model: 'minilm-l6-random' } as Config['rag']['embedding'];
    expect(said(box('embeddings:local'), own).at(-1)).toBe(
      'embeddings: not usable (RAG searches documents by their words only); fix: put minilm-l6-random in MODELS_DIR',
    );
  });
});
