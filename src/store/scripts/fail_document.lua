-- Marks a document failed with a reason and drops its raw upload and any partial chunks.
-- KEYS[1] document hash   KEYS[2] raw upload   KEYS[3] chunks   KEYS[4] vectors
-- ARGV[1] updated_at   ARGV[2] reason
-- Reply: 'ok' | 'missing'
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
redis.call('HSET', KEYS[1], 'status', 'failed', 'error', ARGV[2], 'updated_at', ARGV[1], 'chunk_count', 0)
return 'ok'
