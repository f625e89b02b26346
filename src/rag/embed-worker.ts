/**
 * Worker-thread side of the embedding pool: loads the sentence-embedding model once (transformers.js,
 * int8 ONNX, local files only) and answers `embed` and `chunk` tasks one at a time, so each worker
 * keeps one inference running on its own ONNX Runtime thread(s).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { chunkText, type ChunkOptions } from './chunker.js';
import type { PoolRequest, PoolResponse, WorkerSetup } from './pool-protocol.js';

const setup = workerData as WorkerSetup;
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = setup.modelsDir.endsWith('/') ? setup.modelsDir : `${setup.modelsDir}/`;

let extractor: Promise<FeatureExtractionPipeline> | undefined;

function model(): Promise<FeatureExtractionPipeline> {
  if (setup.modelId === null) throw new Error('this pool has no local model');
  extractor ??= pipeline('feature-extraction', setup.modelId, {
    dtype: 'q8',
    session_options: { intraOpNumThreads: setup.threads, interOpNumThreads: 1 },
  }) as Promise<FeatureExtractionPipeline>;
  return extractor;
}

/** Without a local model (remote embeddings), tokens are estimated at 4 characters each. */
async function counter(): Promise<(text: string) => number> {
  if (setup.modelId === null) return (text) => Math.ceil(text.length / 4);
  const tokenizer = (await model()).tokenizer;
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}

async function handle(req: PoolRequest): Promise<PoolResponse> {
  switch (req.type) {
    case 'embed': {
      const out = await (await model())(req.texts, { pooling: 'mean', normalize: true });
      const data = out.data as Float32Array;
      const dims = Number(out.dims[out.dims.length - 1]);
      return { id: req.id, ok: true, type: 'embed', data, dims, threadId };
    }
    case 'chunk': {
      const chunks = chunkText(req.text, await counter(), req.options satisfies ChunkOptions);
      return { id: req.id, ok: true, type: 'chunk', chunks, threadId };
    }
    case 'warm': {
      if (setup.modelId !== null) await model();
      return { id: req.id, ok: true, type: 'warm', threadId };
    }
  }
}

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (req: PoolRequest) => {
  queue = queue.then(async () => {
    let res: PoolResponse;
    try {
      res = await handle(req);
    } catch (err) {
      res = { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err), threadId };
    }
    if (res.ok && res.type === 'embed') parentPort!.postMessage(res, [res.data.buffer as ArrayBuffer]);
    else parentPort!.postMessage(res);
  });
});
