import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { deliver, type Fault, type FaultKind, type HealthyReply } from './fault-delivery.js';
import { readTranscriptionCall, tone } from './openai-audio-server.js';
import { completion, sseBody, textEvents, toolCallEvents, type ChatCompletionRequest } from './openai-server.js';

export { faultKinds, type Fault, type FaultKind } from './fault-delivery.js';

/** The upstream calls a voice or chat turn makes, each of which a test may make fail. */
export type FaultStage = 'stt' | 'llm' | 'tts' | 'webhook' | 'tool';

/** One call as it arrived, and what it was answered with. */
export interface UpstreamCall {
  lane: string;
  stage: FaultStage;
  /** The fault it got; null for a healthy answer. */
  fault: FaultKind | null;
  at: number;
  /** The client went away before the answer was over (an abort, or giving up on a hang or drip). */
  abandoned: boolean;
}

/** What a lane answers when it is healthy. */
export interface LaneAnswers {
  /** The transcript of every utterance. */
  transcript: string;
  /** The LLM's text (and the text after a tool's result). */
  answer: string;
  /** The webhook's `response`. */
  webhook: string;
}

export const defaultAnswers: LaneAnswers = {
  transcript: 'What time is it?',
  answer: 'Fine, thanks. All is well here.',
  webhook: 'Webhook says hello. All is well.',
};

/** The tool every lane's LLM asks for when the request offers tools. */
export const laneTool = {
  name: 'lookup_order',
  description: 'Looks an order up.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
} as const;

const modelPrefix = 'lane-';

/**
 * One local server standing in for every upstream a turn calls: an OpenAI-compatible API
 * (`POST /v1/audio/transcriptions`, `/v1/chat/completions` plain and streamed, `/v1/audio/speech`
 * as raw 24 kHz PCM16, `GET /v1/models`) and the operator's webhook and tool
 * (`POST /lanes/<lane>/webhook`, `/lanes/<lane>/tool`). Calls are sorted into lanes, one per agent
 * under test: by the model name (`lane-<lane>`, the agent's preset names it for STT, LLM and TTS)
 * or by the path. A test queues faults per lane and stage (`inject`); each call takes the next
 * one, and is answered healthily when none is queued.
 */
export class FaultUpstream {
  readonly calls: UpstreamCall[] = [];
  /** `http://127.0.0.1:<port>/v1` (OPENAI_BASE_URL). */
  readonly baseUrl: string;
  private readonly queues = new Map<string, (Fault | null)[]>();
  private picker: ((lane: string, stage: FaultStage) => Fault | null) | null = null;
  private readonly answers = new Map<string, LaneAnswers>();
  private readonly sockets = new Set<Socket>();
  private waiters: { test: () => boolean; resolve: () => void }[] = [];
  private closing = false;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** The stall between the pieces of a `drip`. */
    readonly dripGapMs: number,
  ) {
    this.baseUrl = `${url}/v1`;
  }

  static async start(options: { dripGapMs: number }): Promise<FaultUpstream> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    const upstream = new FaultUpstream(server, `http://127.0.0.1:${address.port}`, options.dripGapMs);
    server.on('connection', (s) => {
      upstream.sockets.add(s);
      s.on('close', () => upstream.sockets.delete(s));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      upstream.handle(req, res).catch((err: unknown) => {
        // a bug of this test server: answer it as one, so the test sees it
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`fault upstream failed: ${String(err)}`);
      });
    });
    return upstream;
  }

  /** The model name that puts a preset's STT, LLM or TTS calls in `lane`. */
  model(lane: string): string {
    return `${modelPrefix}${lane}`;
  }

  webhookUrl(lane: string): string {
    return `${this.url}/lanes/${lane}/webhook`;
  }

  toolUrl(lane: string): string {
    return `${this.url}/lanes/${lane}/tool`;
  }

  /** What `lane` answers when healthy (default: `defaultAnswers`). */
  answer(lane: string, answers: Partial<LaneAnswers>): void {
    this.answers.set(lane, { ...defaultAnswers, ...answers });
  }

  /** The next call of `stage` in `lane` gets `fault`, or a healthy answer (after any queued before it). */
  inject(lane: string, stage: FaultStage, fault: Fault | FaultKind | 'healthy'): void {
    const key = `${lane}/${stage}`;
    const queue = this.queues.get(key) ?? [];
    queue.push(fault === 'healthy' ? null : typeof fault === 'string' ? { kind: fault } : fault);
    this.queues.set(key, queue);
  }

  /** Decides the fault of every call that has none queued (null: healthy); null again: all healthy. */
  pickFaults(picker: ((lane: string, stage: FaultStage) => Fault | null) | null): void {
    this.picker = picker;
  }

  callsOf(lane: string, stage?: FaultStage): UpstreamCall[] {
    return this.calls.filter((c) => c.lane === lane && (stage === undefined || c.stage === stage));
  }

  /** Resolves once `test` holds (checked on every call and every abandoned answer). */
  async until(test: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fault upstream: no ${what} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private check(): void {
    const met = this.waiters.filter((w) => w.test());
    this.waiters = this.waiters.filter((w) => !met.includes(w));
    for (const w of met) w.resolve();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? '';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: 'lane-model', object: 'model', created: 0, owned_by: 'x' }] }),
      );
      return;
    }
    const routed = await this.route(req, raw, path);
    if (routed === null) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route for ${req.method} ${path}` } }));
      return;
    }
    const { lane, stage, healthy } = routed;
    const queue = this.queues.get(`${lane}/${stage}`) ?? [];
    const fault = queue.length > 0 ? queue.shift()! : (this.picker?.(lane, stage) ?? null);
    const call: UpstreamCall = { lane, stage, fault: fault?.kind ?? null, at: performance.now(), abandoned: false };
    this.calls.push(call);
    this.check();
    const gone = new Promise<void>((resolve) =>
      res.on('close', () => {
        if (!res.writableFinished && !this.closing) call.abandoned = true;
        resolve();
        this.check();
      }),
    );
    await deliver(res, healthy, fault, { dripGapMs: this.dripGapMs, gone });
  }

  private async route(
    req: IncomingMessage,
    raw: Buffer,
    path: string,
  ): Promise<{ lane: string; stage: FaultStage; healthy: HealthyReply } | null> {
    const hook = /^\/lanes\/([\w-]+)\/(webhook|tool)$/.exec(path);
    if (req.method === 'POST' && hook !== null) {
      const lane = hook[1]!;
      const answers = this.answersOf(lane);
      const body = hook[2] === 'webhook' ? { response: answers.webhook } : { order_id: 'A-17', status: 'shipped' };
      return { lane, stage: hook[2] as 'webhook' | 'tool', healthy: json(body) };
    }
    if (req.method !== 'POST') return null;
    if (path.endsWith('/audio/transcriptions')) {
      const call = await readTranscriptionCall(req, raw, 0);
      const lane = laneOf(call?.model);
      return lane === null ? null : { lane, stage: 'stt', healthy: json({ text: this.answersOf(lane).transcript }) };
    }
    const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    const lane = laneOf(body['model']);
    if (lane === null) return null;
    if (path.endsWith('/audio/speech')) {
      return { lane, stage: 'tts', healthy: speech(typeof body['input'] === 'string' ? body['input'] : '') };
    }
    if (path.endsWith('/chat/completions')) {
      return { lane, stage: 'llm', healthy: chat(body as unknown as ChatCompletionRequest, this.answersOf(lane)) };
    }
    return null;
  }

  private answersOf(lane: string): LaneAnswers {
    return this.answers.get(lane) ?? defaultAnswers;
  }
}

function laneOf(model: unknown): string | null {
  return typeof model === 'string' && model.startsWith(modelPrefix) ? model.slice(modelPrefix.length) : null;
}

/** A JSON answer, in two chunks (so that a cut or reset leaves half of it). */
function json(body: unknown): HealthyReply {
  const text = Buffer.from(JSON.stringify(body));
  const half = Math.ceil(text.length / 2);
  return {
    contentType: 'application/json',
    chunked: false,
    chunks: [text.subarray(0, half), text.subarray(half)],
    garbage: {
      contentType: 'application/json',
      body: Buffer.concat([text.subarray(0, half), Buffer.from([0, 0xff, 0x7b])]),
    },
  };
}

/**
 * An LLM answer: streamed as OpenAI streams it (one event per word; tool calls when the request
 * offers tools and no tool has answered since the user spoke), or whole when not streamed.
 */
function chat(req: ChatCompletionRequest, answers: LaneAnswers): HealthyReply {
  const last = req.messages.at(-1);
  const askTool = (req.tools?.length ?? 0) > 0 && last?.role === 'user';
  if (req.stream !== true) {
    return json(completion(req.model, answers.answer));
  }
  const events = askTool
    ? toolCallEvents(req.model, { toolCalls: [{ name: laneTool.name, arguments: { order_id: 'A-17' } }] })
    : textEvents(req.model, answers.answer);
  const wire = sseBody(events);
  // one chunk per event, as a server flushes them
  const chunks = wire.split(/(?<=\n\n)/).map((e) => Buffer.from(e));
  return {
    contentType: 'text/event-stream',
    chunked: true,
    chunks,
    garbage: {
      contentType: 'text/event-stream',
      body: Buffer.from('data: {"id":"chatcmpl-x","choices":[{"delta":{"content":\u0000\u00ff\n\ndata: [DONE]\n\n'),
    },
  };
}

/** Speech: a 440 Hz tone, 10 ms per character, in odd-sized chunks; garbage is an HTML error page. */
function speech(input: string): HealthyReply {
  const samples = tone(Math.max(200, input.length * 10));
  const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 4801) chunks.push(bytes.subarray(at, at + 4801));
  return {
    contentType: 'application/octet-stream',
    chunked: true,
    chunks,
    garbage: { contentType: 'text/html', body: Buffer.from('<html><body><h1>502 Bad Gateway</h1></body></html>') },
  };
}
