-- Marks a document ready once its chunks (and vectors, unless only the lexical index could be
-- built) are written: first ingestion, re-embedding with another model, or vectors added to a
-- lexical document. Bumps the agent's RAG version so every instance reloads its index. The raw
-- upload is kept while the document is lexical (its vectors job chunks it again with the model's
-- tokenizer) and dropped once it is hybrid. When the document was deleted meanwhile, the chunks
-- and vectors just written are removed instead.
-- KEYS[1] document hash   KEYS[2] chunks   KEYS[3] vectors   KEYS[4] raw upload   KEYS[5] agent RAG version
-- ARGV[1] updated_at   ARGV[2] chunk_count   ARGV[3] text_chars   ARGV[4] embedding_model
-- ARGV[5] search_index ('hybrid' | 'lexical')   ARGV[6] vectors_error ('' for none)
-- Reply: the new RAG version | 'missing'
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  return 'missing'
end
redis.call('HSET', KEYS[1], 'status', 'ready', 'chunk_count', ARGV[2], 'text_chars', ARGV[3], 'embedding_model', ARGV[4],
  'updated_at', ARGV[1], 'search_index', ARGV[5])
redis.call('HDEL', KEYS[1], 'error')
if ARGV[6] == '' then redis.call('HDEL', KEYS[1], 'vectors_error') else redis.call('HSET', KEYS[1], 'vectors_error', ARGV[6]) end
if ARGV[5] == 'hybrid' then redis.call('DEL', KEYS[4]) end
return redis.call('INCR', KEYS[5])
