import type { ComponentChildren, JSX } from 'preact';
import { ApiError } from '../api/client.js';

/** The error in words: the server's message, what it means for this status, and the request id to quote. */
export function describeError(error: unknown): { title: string; lines: string[] } {
  if (error instanceof ApiError) {
    const lines: string[] = [];
    if (Array.isArray(error.details)) {
      for (const d of error.details as { path?: unknown; message?: unknown }[]) {
        if (typeof d?.message === 'string')
          lines.push(`${typeof d.path === 'string' ? `${d.path}: ` : ''}${d.message}`);
      }
    } else if (error.details !== undefined && error.details !== null && typeof error.details === 'object') {
      for (const [k, v] of Object.entries(error.details))
        lines.push(`${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
    }
    const status = error.status === 0 ? '' : ` (HTTP ${error.status}, ${error.code})`;
    if (error.requestId !== null) lines.push(`Request id: ${error.requestId}`);
    return { title: `${capitalise(error.message)}${status}`, lines };
  }
  return { title: error instanceof Error ? error.message : String(error), lines: [] };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** An API error in words, announced to screen readers. */
export function ErrorNote({ error, prefix }: { error: unknown; prefix?: string }): JSX.Element {
  const { title, lines } = describeError(error);
  return (
    <div class="note note-error" role="alert">
      <strong>
        <span aria-hidden="true">⚠ </span>
        {prefix !== undefined ? `${prefix}: ` : 'Error: '}
        {title}
      </strong>
      {lines.length > 0 && (
        <ul>
          {lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }): JSX.Element {
  return (
    <p class="loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }): JSX.Element {
  return <p class="empty">{children}</p>;
}

export function Success({ children }: { children: ComponentChildren }): JSX.Element {
  return (
    <p class="note note-ok" role="status">
      <span aria-hidden="true">✓ </span>
      {children}
    </p>
  );
}

/** A status word with a symbol, so it never depends on colour alone. */
export function Badge({ kind, children }: { kind: 'ok' | 'warn' | 'bad' | 'info'; children: ComponentChildren }) {
  const symbol = { ok: '●', warn: '◆', bad: '✕', info: '○' }[kind];
  return (
    <span class={`badge badge-${kind}`}>
      <span aria-hidden="true">{symbol} </span>
      {children}
    </span>
  );
}
