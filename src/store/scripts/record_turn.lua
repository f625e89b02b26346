-- Marks activity on an active session: optionally one more turn (the session's and the session
-- stats'), last activity now, re-scored in the active sets (which the idle sweeper reads), and the
-- agent's last_active_ms. Ended sessions are left alone. The agent's `turns` counter is not
-- touched here: the caller bumps it with the response time (AgentRepository.bump).
-- KEYS[1] session hash   KEYS[2] active sessions (zset)   KEYS[3] agent's active sessions (zset)
-- KEYS[4] session stats hash   KEYS[5] agent stats hash   KEYS[6] active of the session's type (zset)
-- ARGV[1] session id   ARGV[2] now (Unix ms)   ARGV[3] now (ISO 8601)   ARGV[4] turns to add (0 or 1)
-- Reply: 'ok' | 'missing' | 'ended'
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'active' then return 'ended' end
local turns = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'last_activity_at', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[6], ARGV[2], ARGV[1])
if turns > 0 then
  redis.call('HINCRBY', KEYS[1], 'turns', turns)
  redis.call('HINCRBY', KEYS[4], 'turns', turns)
end
redis.call('HSET', KEYS[5], 'last_active_ms', ARGV[2])
return 'ok'
