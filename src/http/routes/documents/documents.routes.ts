import { documentSchema, searchResultSchema } from '../../../schemas/document.js';
import type { RagService } from '../../../rag/rag-service.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import {
  agentDocumentsParams,
  documentPageSchema,
  documentParams,
  listDocumentsQuery,
  searchDocumentsQuery,
  uploadJsonSchema,
  uploadMultipartSchema,
} from './documents.schema.js';
import { readUpload } from './upload.js';

const tag = 'Documents';

/** RAG documents of an agent: list, upload, get, retry, delete, search. */
export function documentRoutes(store: Store, rag: RagService, maxUploadBytes: number): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/agents/:id/documents',
      operationId: 'listAgentDocuments',
      summary: 'Documents of an agent, newest first; filter by status',
      tag,
      params: agentDocumentsParams,
      query: listDocumentsQuery,
      errors: [404],
      responses: { 200: { description: 'A page of documents', schema: documentPageSchema } },
      handler: async (_ctx, { params, query }) => {
        await store.agents.get(params.id);
        const { status, ...page } = query;
        return { body: await store.documents.list(params.id, page, status) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/:id/documents',
      operationId: 'uploadAgentDocument',
      summary:
        'Upload a document: multipart/form-data with field `file` (and optional `name`), or JSON {name, text, type}. ' +
        'Plain text, Markdown, HTML and PDF. Answers 202 with the record in status `processing`; extraction, chunking and embedding run in the background. ' +
        'The same content twice for one agent is 409 with `details.document_id`, unless that document is `failed`: then the upload replaces it. ' +
        'Without a usable embedding model the document becomes ready on the keyword index alone (`search_index: lexical`).',
      tag,
      params: agentDocumentsParams,
      documentedBody: { 'multipart/form-data': uploadMultipartSchema, 'application/json': uploadJsonSchema },
      errors: [404, 409, 413, 415],
      responses: {
        202: {
          description: 'Accepted; poll GET …/documents/{doc_id} until `ready` or `failed`',
          schema: documentSchema,
        },
      },
      handler: async (ctx, { params }) => {
        await store.agents.get(params.id);
        const upload = await readUpload(ctx, maxUploadBytes);
        const doc = await rag.upload(params.id, upload);
        return { status: 202, body: doc, headers: { Location: `/admin/v1/agents/${params.id}/documents/${doc.id}` } };
      },
    }),
    // Before /documents/:doc_id, so `search` is never read as an id.
    defineRoute({
      method: 'get',
      path: '/agents/:id/documents/search',
      operationId: 'searchAgentDocuments',
      summary:
        'Hybrid search (BM25 + vector, reciprocal rank fusion) over the agent’s ready documents; BM25 alone for documents without vectors (`search_index: lexical`)',
      tag,
      params: agentDocumentsParams,
      query: searchDocumentsQuery,
      errors: [404],
      responses: { 200: { description: 'Ranked chunks', schema: searchResultSchema } },
      handler: async (_ctx, { params, query }) => {
        await store.agents.get(params.id);
        return { body: { query: query.q, k: query.k, data: await rag.search(params.id, query.q, query.k) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/:id/documents/:doc_id',
      operationId: 'getAgentDocument',
      summary: 'Get a document record (status, chunk count, error)',
      tag,
      params: documentParams,
      errors: [404],
      responses: { 200: { description: 'The document', schema: documentSchema } },
      handler: async (_ctx, { params }) => {
        await store.agents.get(params.id);
        return { body: await store.documents.get(params.id, params.doc_id) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/:id/documents/:doc_id/retry',
      operationId: 'retryAgentDocument',
      summary:
        'Run the ingestion of a `failed` document again from its stored upload. Answers 202 with the record in status `processing`. ' +
        '409 when the document is not `failed`, or when its upload is no longer stored (upload the same content again: it replaces the failed document).',
      tag,
      params: documentParams,
      errors: [404, 409],
      responses: {
        202: { description: 'Queued again; poll GET …/documents/{doc_id}', schema: documentSchema },
      },
      handler: async (_ctx, { params }) => {
        await store.agents.get(params.id);
        return { status: 202, body: await rag.retry(params.id, params.doc_id) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/:id/documents/:doc_id',
      operationId: 'deleteAgentDocument',
      summary: 'Delete a document with its chunks and vectors; it leaves every instance’s index before its next search',
      tag,
      params: documentParams,
      errors: [404],
      responses: { 204: { description: 'Deleted' } },
      handler: async (_ctx, { params }) => {
        await store.agents.get(params.id);
        await rag.delete(params.id, params.doc_id);
        return { status: 204 };
      },
    }),
  ];
}
