-- Puts a failed document back to `processing` so its ingestion job can run again.
-- KEYS[1] document hash   KEYS[2] raw upload
-- ARGV[1] updated_at
-- Reply: 'ok' | 'missing' | 'no_upload' | {'status', current status}
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'failed' then return {'status', status} end
if redis.call('EXISTS', KEYS[2]) == 0 then return 'no_upload' end
redis.call('HSET', KEYS[1], 'status', 'processing', 'updated_at', ARGV[1])
redis.call('HDEL', KEYS[1], 'error')
return 'ok'
