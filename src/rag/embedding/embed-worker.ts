/**
 * Worker-thread side of the embedding pool: loads the sentence-embedding model once (transformers.js,
 * int8 ONNX, local files only) and answers `embed` and `chunk` requests one at a time, so each worker
 * keeps one inference running on its own ONNX Runtime thread(s).
 */
import { basename, dirname } from 'node:path';
import { workerData } from 'node:worker_threads';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { chunkText } from '../chunker.js';
import { serveRpc } from '../../workers/serve-rpc.js';
import type { EmbeddingProtocol, EmbeddingWorkerSetup } from './embedding-protocol.js';

const setup = workerData as EmbeddingWorkerSetup;
// The model's folder is addressed as <parent>/<name>, so any folder works (aliases, nested ids).
env.allowRemoteModels = false;
env.allowLocalModels = true;
if (setup.modelDir !== null) env.localModelPath = `${dirname(setup.modelDir)}/`;
const modelName = setup.modelDir === null ? null : basename(setup.modelDir);

let extractor: Promise<FeatureExtractionPipeline> | undefined;

function model(): Promise<FeatureExtractionPipeline> {
  if (modelName === null) throw new Error('this pool has no local model');
  extractor ??= pipeline('feature-extraction', modelName, {
    dtype: 'q8',
    session_options: { intraOpNumThreads: setup.threads, interOpNumThreads: 1 },
  }) as Promise<FeatureExtractionPipeline>;
  return extractor;
}

/** Without a local model (remote embeddings), tokens are estimated at 4 characters each. */
async function counter(): Promise<(text: string) => number> {
  if (modelName === null) return (text) => Math.ceil(text.length / 4);
  const tokenizer = (await model()).tokenizer;
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}

serveRpc<EmbeddingProtocol>(
  {
    async embed({ texts }) {
      const out = await (await model())(texts, { pooling: 'mean', normalize: true });
      return { data: out.data as Float32Array, dims: Number(out.dims[out.dims.length - 1]) };
    },
    async chunk({ text, options }) {
      return { chunks: chunkText(text, await counter(), options) };
    },
    async warm() {
      if (modelName !== null) await model();
      return {};
    },
  },
  { embed: (reply) => [reply.data.buffer as ArrayBuffer] },
);
