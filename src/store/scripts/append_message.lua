-- Appends a message to a conversation with its counters, atomically.
-- KEYS[1] conversation hash   KEYS[2] conversation's messages (list)   KEYS[3] agent stats hash
-- ARGV[1] message JSON   ARGV[2] role (user|agent)   ARGV[3] now (Unix ms)   ARGV[4] now (ISO 8601)
-- Reply: 'ok' | 'missing'
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'message_count', 1)
redis.call('HSET', KEYS[1], 'updated_at', ARGV[4], 'last_message_at', ARGV[4])
redis.call('HINCRBY', KEYS[3], 'messages_' .. ARGV[2], 1)
redis.call('HSET', KEYS[3], 'last_active_ms', ARGV[3])
return 'ok'
