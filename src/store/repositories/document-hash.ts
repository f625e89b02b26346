import type { DocumentRecord, DocumentStatus, DocumentType, SearchIndex } from '../../schemas/document.js';
import { int, numberOrNull, text, textOrNull, type Hash } from '../hashes.js';

/** A document record as its Redis hash holds it (every field a string). */
export function documentFromHash(h: Hash): DocumentRecord {
  const status = text(h, 'status') as DocumentStatus;
  return {
    id: text(h, 'id'),
    agent_id: text(h, 'agent_id'),
    name: text(h, 'name'),
    type: text(h, 'type') as DocumentType,
    size_bytes: int(h, 'size_bytes'),
    sha256: text(h, 'sha256'),
    chunk_count: int(h, 'chunk_count'),
    text_chars: numberOrNull(h, 'text_chars'),
    embedding_model: text(h, 'embedding_model'),
    // Documents made before lexical-only indexing were ready with vectors.
    search_index: status === 'ready' ? ((textOrNull(h, 'search_index') as SearchIndex | null) ?? 'hybrid') : null,
    vectors_error: textOrNull(h, 'vectors_error'),
    status,
    error: textOrNull(h, 'error'),
    created_at: text(h, 'created_at'),
    updated_at: text(h, 'updated_at'),
  };
}
