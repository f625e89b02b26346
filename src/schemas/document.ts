import { z } from 'zod';
import { timestampSchema } from './common.js';

export const documentTypes = ['text', 'markdown', 'html', 'pdf'] as const;
export const documentStatuses = ['processing', 'ready', 'failed'] as const;
export const searchIndexes = ['hybrid', 'lexical'] as const;

export type DocumentType = (typeof documentTypes)[number];
export type DocumentStatus = (typeof documentStatuses)[number];
export type SearchIndex = (typeof searchIndexes)[number];

export const documentSchema = z
  .object({
    id: z.string().meta({ example: 'doc_01jd3n6v8m0000000000000000' }),
    agent_id: z.string(),
    name: z.string(),
    type: z.enum(documentTypes),
    size_bytes: z.number().int().meta({ description: 'Size of the upload as received.' }),
    sha256: z
      .string()
      .meta({ description: 'Hex SHA-256 of the upload; the same content twice for one agent is refused (409).' }),
    chunk_count: z.number().int().meta({ description: 'Chunks indexed; 0 until the document is ready.' }),
    text_chars: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Characters of extracted text; null until extracted.' }),
    embedding_model: z.string().meta({
      description:
        "Embedding provider and model the vectors were made with, e.g. local:Xenova/all-MiniLM-L6-v2 (for a `lexical` document: the model its vectors are waiting for); switches when the agent's model changed and the document was re-embedded.",
    }),
    search_index: z.enum(searchIndexes).nullable().meta({
      description:
        "`hybrid`: searchable by keywords (BM25) and by vectors. `lexical`: searchable by keywords only, because no embedding model was usable (see `vectors_error`); a background job adds the vectors once one is (after a restart with the model installed, or a change of the agent's embeddings), without a new upload. null until the document is ready.",
    }),
    vectors_error: z.string().nullable().meta({
      description: 'Why a `lexical` document has no vectors yet, naming the missing model and the fix; null otherwise.',
    }),
    status: z.enum(documentStatuses).meta({
      description:
        '`processing`: queued or being extracted, chunked and embedded. `ready`: searchable (see `search_index`). `failed`: see `error`; retry it (POST …/retry) or upload the same content again, which replaces it.',
    }),
    error: z.string().nullable().meta({ description: 'Why ingestion failed; null otherwise.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Document' });

export type DocumentRecord = z.infer<typeof documentSchema>;

export const documentTextUploadSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    text: z.string().min(1).meta({ description: 'The document itself.' }),
    type: z
      .enum(['text', 'markdown', 'html'])
      .default('text')
      .meta({ description: 'How to read `text`; PDF only as a file upload.' }),
  })
  .meta({ id: 'DocumentTextUpload' });

/** One indexed piece of a document's extracted text; `text === extracted.slice(start, end)`. */
export interface Chunk {
  /** `<doc_id>#<index>`. */
  id: string;
  document_id: string;
  index: number;
  text: string;
  /** Character offsets (UTF-16 code units) into the document's extracted text. */
  start: number;
  end: number;
  tokens: number;
}

export const searchHitSchema = z
  .object({
    chunk_id: z.string().meta({ example: 'doc_01jd3n6v8m0000000000000000#3' }),
    document_id: z.string(),
    document_name: z.string(),
    text: z.string(),
    start: z.number().int().meta({ description: 'Offset of the chunk in the document’s extracted text.' }),
    end: z.number().int(),
    score: z
      .number()
      .meta({ description: 'Fused score: reciprocal-rank fusion of both rankings, scaled so 1 means first in both.' }),
    bm25: z.number().nullable().meta({ description: 'BM25 score; null when the chunk shares no term with the query.' }),
    vector: z.number().nullable().meta({ description: 'Cosine similarity; null when not among the nearest vectors.' }),
    bm25_rank: z.number().int().nullable(),
    vector_rank: z.number().int().nullable(),
  })
  .meta({ id: 'SearchHit' });

export type SearchHit = z.infer<typeof searchHitSchema>;

export const searchResultSchema = z
  .object({
    query: z.string(),
    k: z.number().int(),
    data: z.array(searchHitSchema),
  })
  .meta({ id: 'SearchResult' });
