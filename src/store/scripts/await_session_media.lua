-- Opens a voice session's connect window: it must get its media connection before the deadline,
-- or the reaper ends it (`never_connected`). Called before the session record is created, so a
-- crash in between leaves a deadline of a missing session (dropped by the reaper), never a leak.
-- KEYS[1] media deadlines (zset)
-- ARGV[1] session id   ARGV[2] connect window (ms)
-- Reply: the deadline (Unix ms, Redis time)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = now + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], deadline, ARGV[1])
return deadline
