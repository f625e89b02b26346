/**
 * Worker-thread side of a LocalModel: loads one transformers.js pipeline (local files only, never
 * the hub) and runs its requests one at a time, so inference never blocks the main event loop.
 */
import { basename, dirname } from 'node:path';
import { workerData } from 'node:worker_threads';
import {
  env,
  LogLevel,
  pipeline,
  type AutomaticSpeechRecognitionPipeline,
  type TextToAudioPipeline,
} from '@huggingface/transformers';
import { serveRpc } from '../../workers/serve-rpc.js';
import type { ModelProtocol, ModelWorkerSetup } from './model-protocol.js';

const setup = workerData as ModelWorkerSetup;
// The model's folder is addressed as <parent>/<name>, so any folder works (aliases, nested ids).
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = `${dirname(setup.modelDir)}/`;
env.logLevel = LogLevel.ERROR; // the default language warning is documented behaviour, not news
const modelName = basename(setup.modelDir);
const sessionOptions = { intraOpNumThreads: setup.threads, interOpNumThreads: 1 };

let asr: Promise<AutomaticSpeechRecognitionPipeline> | undefined;
let tts: Promise<TextToAudioPipeline> | undefined;

function recognizer(): Promise<AutomaticSpeechRecognitionPipeline> {
  asr ??= pipeline('automatic-speech-recognition', modelName, {
    dtype: setup.dtype,
    device: 'cpu',
    session_options: sessionOptions,
  }) as Promise<AutomaticSpeechRecognitionPipeline>;
  return asr;
}

function synthesizer(): Promise<TextToAudioPipeline> {
  tts ??= pipeline('text-to-speech', modelName, {
    dtype: setup.dtype,
    device: 'cpu',
    session_options: sessionOptions,
  }) as Promise<TextToAudioPipeline>;
  return tts;
}

/** Whisper longer than its 30 s window is transcribed in overlapping chunks. */
const windowSamples = 30 * 16_000;

serveRpc<ModelProtocol>(
  {
    async load() {
      await (setup.task === 'automatic-speech-recognition' ? recognizer() : synthesizer());
      return {};
    },
    async transcribe(req) {
      const pipe = await recognizer();
      const config = pipe.model.generation_config as { is_multilingual?: boolean } | null;
      // English-only Whisper models refuse a language; multilingual ones need one or assume English.
      const language =
        config?.is_multilingual === true && req.language !== null ? { language: req.language, task: 'transcribe' } : {};
      const long = req.audio.length > windowSamples ? { chunk_length_s: 30, stride_length_s: 5 } : {};
      const limit = req.maxNewTokens === null ? {} : { max_new_tokens: req.maxNewTokens };
      const out = await pipe(req.audio, { ...language, ...long, ...limit });
      const text = (Array.isArray(out) ? out.map((o) => o.text).join(' ') : out.text).trim();
      return { text };
    },
    async synthesize(req) {
      const result = await (await synthesizer())(req.text);
      const out = Array.isArray(result) ? result[0] : result;
      if (out === undefined) throw new Error('the model returned no audio');
      return { audio: out.data, sampleRate: out.sampling_rate };
    },
  },
  { synthesize: (reply) => [reply.audio.buffer as ArrayBuffer] },
);
