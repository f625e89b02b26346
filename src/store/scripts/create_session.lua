-- Creates a session with its conversation, every index, the counters and (with an outbox entry)
-- its `session_start` event, atomically; refuses when the agent does not exist (so a session
-- cannot outlive an agent deleted meanwhile).
-- KEYS[1] agent record          KEYS[2] session hash             KEYS[3] conversation hash
-- KEYS[4] session index (zset)  KEYS[5] agent's sessions (zset)  KEYS[6] active sessions (zset)
-- KEYS[7] agent's active (zset) KEYS[8] conversation index       KEYS[9] agent's conversations
-- KEYS[10] session stats hash   KEYS[11] agent stats hash       KEYS[12] active of this type (zset)
-- KEYS[13] event outbox (list)
-- ARGV[1] session id   ARGV[2] conversation id   ARGV[3] now (Unix ms)   ARGV[4] type (chat|voice)
-- ARGV[5] outbox entry JSON, '' for none
-- ARGV[6] n, the count of session field/value arguments that follow
-- ARGV[7 .. 6+n] session fields and values   ARGV[7+n ..] conversation fields and values
-- Reply: 'ok' | 'agent_missing' | 'exists'
if redis.call('EXISTS', KEYS[1]) == 0 then return 'agent_missing' end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 'exists' end
local n = tonumber(ARGV[6])
local now = ARGV[3]
redis.call('HSET', KEYS[2], unpack(ARGV, 7, 6 + n))
redis.call('HSET', KEYS[3], unpack(ARGV, 7 + n, #ARGV))
redis.call('ZADD', KEYS[4], now, ARGV[1])
redis.call('ZADD', KEYS[5], now, ARGV[1])
redis.call('ZADD', KEYS[6], now, ARGV[1])
redis.call('ZADD', KEYS[7], now, ARGV[1])
redis.call('ZADD', KEYS[12], now, ARGV[1])
redis.call('ZADD', KEYS[8], now, ARGV[2])
redis.call('ZADD', KEYS[9], now, ARGV[2])
redis.call('HINCRBY', KEYS[10], 'total', 1)
redis.call('HINCRBY', KEYS[10], 'type:' .. ARGV[4], 1)
redis.call('HINCRBY', KEYS[11], 'sessions_total', 1)
redis.call('HINCRBY', KEYS[11], 'sessions_' .. ARGV[4], 1)
redis.call('HSET', KEYS[11], 'last_active_ms', now)
if ARGV[5] ~= '' then redis.call('RPUSH', KEYS[13], ARGV[5]) end
return 'ok'
