-- Claims a live voice session for one process: the one media connection it may have. Refused when
-- another holds a lease that has not expired, when the lease expired (its owner died: the reaper
-- ends it `owner_lost`), when the connect window has passed, or when the session is not active.
-- KEYS[1] session hash   KEYS[2] media deadlines (zset)   KEYS[3] leases (zset)   KEYS[4] lease holders (hash)
-- ARGV[1] session id   ARGV[2] holder (instance id)   ARGV[3] lease TTL (ms)
-- Reply: 'ok' | 'missing' | 'ended' | 'taken' | 'expired'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'active' then return 'ended' end
local lease = redis.call('ZSCORE', KEYS[3], ARGV[1])
if lease then
  local holder = redis.call('HGET', KEYS[4], ARGV[1]) or ''
  if string.sub(holder, 1, 8) == 'reaping:' then return 'ended' end
  if tonumber(lease) > now then return 'taken' end
  return 'expired'
end
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[1])
if deadline and tonumber(deadline) <= now then return 'expired' end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
return 'ok'
