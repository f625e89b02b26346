/**
 * Text pushed by a callback (node-llama-cpp's `onTextChunk`) read as an async iterable. Unbounded:
 * the producer is the model, a few dozen chunks a second at most, and the reader is the reply
 * graph, which takes every chunk at once; a reader that stops early aborts the generation instead.
 */
export class ChunkQueue implements AsyncIterable<string> {
  private readonly chunks: string[] = [];
  private ended = false;
  private failure: { err: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(chunk: string): void {
    if (this.ended) return;
    this.chunks.push(chunk);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(err: unknown): void {
    if (this.ended) return;
    this.failure = { err };
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        yield chunk;
        continue;
      }
      if (this.failure !== undefined) throw this.failure.err;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
