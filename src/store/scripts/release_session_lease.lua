-- Gives a lease up once its session has ended. A session still active keeps its lease (to expire,
-- and be ended `owner_lost`), so a session whose end could not be recorded is never orphaned.
-- KEYS[1] session hash   KEYS[2] leases (zset)   KEYS[3] lease holders (hash)
-- ARGV[1] session id   ARGV[2] holder
-- Reply: 'released' | 'active' (kept: the session has not ended) | 'not_holder'
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then return 'not_holder' end
if redis.call('HGET', KEYS[1], 'status') == 'active' then return 'active' end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 'released'
