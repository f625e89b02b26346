-- Ends an active session once: sets ended_at, end_reason and duration_ms, removes it from the
-- active sets and counts it; with an outbox entry, its `session_end` event is written in the same
-- step, its data completed with the session's duration_ms and turns. A second call (another
-- instance racing, or a retried write) changes nothing.
-- A voice session that never got its media connection (ended `never_connected`, or ended for
-- another reason while still in its connect window) never ran: it has no duration_ms (null in
-- the record and the event), adds nothing to `duration_ms_sum` and is counted in `never_ran`, so
-- the mean duration is over sessions that ran.
-- KEYS[1] session hash   KEYS[2] active sessions (zset)   KEYS[3] agent's active sessions (zset)
-- KEYS[4] session stats hash   KEYS[5] active of the session's type (zset)   KEYS[6] event outbox (list)
-- KEYS[7] analysis outbox (list)   KEYS[8] media deadlines (zset: voice sessions not yet connected)
-- ARGV[1] session id   ARGV[2] now (Unix ms)   ARGV[3] now (ISO 8601)   ARGV[4] end reason
-- ARGV[5] outbox entry JSON ({envelope: {data: {...}}, ...}), '' for none
-- ARGV[6] post-call analysis request JSON, '' for none (appended to KEYS[7] with the end)
-- Reply: the session hash (HGETALL) when this call ended it | 'missing' | 'ended'
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'active' then return 'ended' end
local ran = ARGV[4] ~= 'never_connected' and not redis.call('ZSCORE', KEYS[8], ARGV[1])
local duration = nil
if ran then
  duration = tonumber(ARGV[2]) - tonumber(redis.call('HGET', KEYS[1], 'started_ms'))
  if duration < 0 then duration = 0 end
  redis.call('HSET', KEYS[1], 'duration_ms', duration)
  redis.call('HINCRBY', KEYS[4], 'duration_ms_sum', duration)
else
  redis.call('HINCRBY', KEYS[4], 'never_ran', 1)
end
redis.call('HSET', KEYS[1], 'status', 'ended', 'ended_at', ARGV[3], 'end_reason', ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'ended', 1)
redis.call('HINCRBY', KEYS[4], 'end:' .. ARGV[4], 1)
if ARGV[5] ~= '' then
  local entry = cjson.decode(ARGV[5])
  entry.envelope.data.duration_ms = duration or cjson.null
  entry.envelope.data.turns = tonumber(redis.call('HGET', KEYS[1], 'turns') or '0')
  redis.call('RPUSH', KEYS[6], cjson.encode(entry))
end
if ARGV[6] ~= '' then
  redis.call('RPUSH', KEYS[7], ARGV[6])
end
return redis.call('HGETALL', KEYS[1])
