/** A small typed event emitter (no dependency on Node's EventEmitter or the DOM's EventTarget). */
export class Emitter<Events extends { [name: string]: unknown }> {
  private readonly handlers = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Calls `handler` for every `name` event; returns a function that stops it. */
  on<K extends keyof Events>(name: K, handler: (payload: Events[K]) => void): () => void {
    let set = this.handlers.get(name);
    if (set === undefined) this.handlers.set(name, (set = new Set()));
    set.add(handler as (payload: never) => void);
    return () => set.delete(handler as (payload: never) => void);
  }

  /** Resolves with the next `name` event. */
  once<K extends keyof Events>(name: K): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(name, (payload) => {
        off();
        resolve(payload);
      });
    });
  }

  protected emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    const set = this.handlers.get(name);
    if (set === undefined) return;
    for (const handler of [...set]) {
      try {
        (handler as (payload: Events[K]) => void)(payload);
      } catch (err) {
        // One listener's bug must not stop the others or the connection; it is reported, not dropped.
        console.error(`parley client: a '${String(name)}' listener threw`, err);
      }
    }
  }
}
