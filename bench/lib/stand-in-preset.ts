/**
 * The preset a bench's agents use when the bench measures Parley's own share: its STT and TTS are
 * names the bench's speech overrides answer with their instant (or scripted) stand-ins, and its
 * LLM the OpenAI-compatible client (a local fake where a bench answers in enhanced mode). Named
 * explicitly because the built-in preset follows what is installed: with Debian's pocketsphinx it
 * is the real recogniser, which the benches that run it name on purpose.
 */
export const standInPreset = {
  name: 'Bench stand-ins',
  stt: { provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
  tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
} as const;
