-- Marks a document ready once its chunks and vectors are written (first ingestion or re-embedding
-- with another model), and bumps the agent's RAG version so every instance reloads its index. When the document was deleted meanwhile, the
-- chunks and vectors just written are removed instead.
-- KEYS[1] document hash   KEYS[2] chunks   KEYS[3] vectors   KEYS[4] raw upload   KEYS[5] agent RAG version
-- ARGV[1] updated_at   ARGV[2] chunk_count   ARGV[3] text_chars   ARGV[4] embedding_model
-- Reply: the new RAG version | 'missing'
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
  return 'missing'
end
redis.call('HSET', KEYS[1], 'status', 'ready', 'chunk_count', ARGV[2], 'text_chars', ARGV[3], 'embedding_model', ARGV[4],
  'updated_at', ARGV[1])
redis.call('HDEL', KEYS[1], 'error')
redis.call('DEL', KEYS[4])
return redis.call('INCR', KEYS[5])
