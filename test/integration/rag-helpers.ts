import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestParley, TestResponse } from '../support/parley.js';
import { testAdminKey } from '../support/parley.js';

/** Parley settings of every RAG test: the random-weight MiniLM (test/support/test-models.ts). */
export const ragEnv = { PARLEY_EMBEDDING_MODEL: 'minilm-l6-random' };

export function corpusFile(name: string): Buffer {
  return readFileSync(new URL(`../fixtures/rag/corpus/${name}`, import.meta.url));
}

export const contentTypes: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
};

/** POST multipart/form-data with `file` (and `name` when given). */
export async function uploadFile(
  p: TestParley,
  agentId: string,
  file: { name: string; data: Buffer | string; type?: string },
  name?: string,
): Promise<TestResponse> {
  const form = new FormData();
  const ext = file.name.slice(file.name.lastIndexOf('.'));
  form.append(
    'file',
    new Blob([file.data], { type: file.type ?? contentTypes[ext] ?? 'application/octet-stream' }),
    file.name,
  );
  if (name !== undefined) form.append('name', name);
  const res = await fetch(`${p.url}/admin/v1/agents/${agentId}/documents`, {
    method: 'POST',
    headers: { 'X-API-Key': testAdminKey },
    body: form,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** Polls the document until it leaves `processing`; returns the final record. */
export async function waitForDocument(
  p: TestParley,
  agentId: string,
  docId: string,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await p.request('GET', `/admin/v1/agents/${agentId}/documents/${docId}`);
    expect(res.status).toBe(200);
    if (res.body.status !== 'processing') return res.body as Record<string, unknown>;
    if (Date.now() > deadline) throw new Error(`document ${docId} still processing after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Uploads the named corpus files and waits until each is ready; returns their ids by file name. */
export async function ingestCorpus(p: TestParley, agentId: string, files: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const file of files) {
    const res = await uploadFile(p, agentId, { name: file, data: corpusFile(file) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    ids[file] = res.body.id as string;
  }
  for (const id of Object.values(ids)) expect((await waitForDocument(p, agentId, id)).status).toBe('ready');
  return ids;
}
