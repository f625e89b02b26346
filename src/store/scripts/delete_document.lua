-- Deletes a document with its raw upload, chunks and vectors, frees its sha256 for a new upload,
-- and bumps the agent's RAG version so every instance drops it from its index.
-- KEYS[1] document hash   KEYS[2] agent documents zset   KEYS[3] agent sha256 hash
-- KEYS[4] raw upload   KEYS[5] chunks   KEYS[6] vectors   KEYS[7] agent RAG version
-- ARGV[1] document id
-- Reply: the new RAG version | 'missing'
local sha = redis.call('HGET', KEYS[1], 'sha256')
if not sha then return 'missing' end
if redis.call('HGET', KEYS[3], sha) == ARGV[1] then redis.call('HDEL', KEYS[3], sha) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1], KEYS[4], KEYS[5], KEYS[6])
return redis.call('INCR', KEYS[7])
