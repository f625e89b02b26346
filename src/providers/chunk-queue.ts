/**
 * Chunks pushed by a callback (node-llama-cpp's `onTextChunk`, a socket's messages) read as an
 * async iterable. Unbounded: the producer is a model or a provider streaming one answer, a few
 * dozen chunks a second, and the reader is the reply graph, which takes every chunk at once; a
 * reader that stops early aborts the producer instead.
 */
export class ChunkQueue<T = string> implements AsyncIterable<T> {
  private readonly chunks: T[] = [];
  private ended = false;
  private failure: { err: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(chunk: T): void {
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

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.chunks.length > 0) {
        yield this.chunks.shift()!;
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
