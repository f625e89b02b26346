-- Appends a message to a conversation with its counters and, in the same step, the session's
-- activity (a touch or a counted turn) and the outbox entry of the event that announces it. A
-- message whose id is already among the newest ones is not written again (a retried write whose
-- reply was lost), so retries are idempotent.
-- KEYS[1] conversation hash   KEYS[2] conversation's messages (list)   KEYS[3] agent stats hash
-- KEYS[4] session hash   KEYS[5] active sessions (zset)   KEYS[6] agent's active sessions (zset)
-- KEYS[7] session stats hash   KEYS[8] active of the session's type (zset)   KEYS[9] event outbox (list)
-- ARGV[1] message JSON   ARGV[2] message id   ARGV[3] role (user|agent)   ARGV[4] now (Unix ms)
-- ARGV[5] now (ISO 8601)   ARGV[6] session activity: none | touch | turn
-- ARGV[7] response ms added to the agent's sum with a turn   ARGV[8] outbox entry JSON, '' for none
-- ARGV[9] '1' when the message is an interrupted answer (counted in the agent's interrupted_turns)
-- Reply: 'ok' | 'missing' | 'duplicate'
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local needle = '"id":"' .. ARGV[2] .. '"'
for _, stored in ipairs(redis.call('LRANGE', KEYS[2], -16, -1)) do
  if string.find(stored, needle, 1, true) then return 'duplicate' end
end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'message_count', 1)
redis.call('HSET', KEYS[1], 'updated_at', ARGV[5], 'last_message_at', ARGV[5])
redis.call('HINCRBY', KEYS[3], 'messages_' .. ARGV[3], 1)
redis.call('HSET', KEYS[3], 'last_active_ms', ARGV[4])
local activity = ARGV[6]
if activity ~= 'none' and redis.call('HGET', KEYS[4], 'status') == 'active' then
  local id = redis.call('HGET', KEYS[4], 'id')
  redis.call('HSET', KEYS[4], 'last_activity_at', ARGV[5])
  redis.call('ZADD', KEYS[5], ARGV[4], id)
  redis.call('ZADD', KEYS[6], ARGV[4], id)
  redis.call('ZADD', KEYS[8], ARGV[4], id)
  if activity == 'turn' then
    redis.call('HINCRBY', KEYS[4], 'turns', 1)
    redis.call('HINCRBY', KEYS[7], 'turns', 1)
  end
end
if activity == 'turn' then
  redis.call('HINCRBY', KEYS[3], 'turns', 1)
  redis.call('HINCRBY', KEYS[3], 'response_ms_sum', ARGV[7])
  redis.call('HINCRBY', KEYS[3], 'response_ms_count', 1)
end
if ARGV[9] == '1' then redis.call('HINCRBY', KEYS[3], 'interrupted_turns', 1) end
if ARGV[8] ~= '' then redis.call('RPUSH', KEYS[9], ARGV[8]) end
return 'ok'
