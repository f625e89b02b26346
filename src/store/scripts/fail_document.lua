-- Marks a document failed with a reason and drops any partial chunks. The raw upload stays, so the
-- document can be retried; it goes with the document (delete, or an upload of the same content).
-- KEYS[1] document hash   KEYS[2] chunks   KEYS[3] vectors
-- ARGV[1] updated_at   ARGV[2] reason
-- Reply: 'ok' | 'missing'
redis.call('DEL', KEYS[2], KEYS[3])
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[2], 'updated_at', ARGV[1], 'chunk_count', 0)
redis.call('HDEL', KEYS[1], 'search_index', 'vectors_error')
return 'ok'
