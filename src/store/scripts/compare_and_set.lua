-- Replaces a JSON record only if it still holds what the caller read (optimistic concurrency).
-- KEYS[1] record
-- ARGV[1] expected current value   ARGV[2] new value
-- Reply: 'ok' | 'missing' | 'stale'
local current = redis.call('GET', KEYS[1])
if not current then return 'missing' end
if current ~= ARGV[1] then return 'stale' end
redis.call('SET', KEYS[1], ARGV[2])
return 'ok'
