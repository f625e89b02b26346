-- Resolves an open error record once; resolving it again changes nothing (the first resolved_at
-- and note stay) so the open counters drop exactly once.
-- KEYS[1] error hash   KEYS[2] error stats hash   KEYS[3] agent stats hash (absent when no agent)
-- ARGV[1] now (ISO 8601)   ARGV[2] note   ARGV[3] '1' when a note is given, else '0'
-- Reply: the error hash (HGETALL) | 'missing'
local h = redis.call('HMGET', KEYS[1], 'status', 'type')
if not h[1] then return 'missing' end
if h[1] == 'open' then
  redis.call('HSET', KEYS[1], 'status', 'resolved', 'resolved_at', ARGV[1])
  if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'resolution_note', ARGV[2]) end
  redis.call('HINCRBY', KEYS[2], 'open', -1)
  redis.call('HINCRBY', KEYS[2], 'type:' .. h[2] .. ':open', -1)
  if #KEYS >= 3 then redis.call('HINCRBY', KEYS[3], 'errors_open', -1) end
end
return redis.call('HGETALL', KEYS[1])
