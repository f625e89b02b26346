-- Takes sessions to end: voice sessions whose connect deadline passed (`never_connected`) and,
-- when ARGV[3] is 1, sessions whose lease expired (`owner_lost`). Each is held for the caller as a
-- lease with holder `reaping:<reason>` for ARGV[1] ms, so two reapers do not both work on it and a
-- reaper that dies leaves it to the next (with the same reason).
-- KEYS[1] media deadlines (zset)   KEYS[2] leases (zset)   KEYS[3] lease holders (hash)
-- ARGV[1] hold (ms)   ARGV[2] most to take from each set   ARGV[3] '1' to take expired leases
-- Reply: flat list: session id, reason, session id, reason, ...
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = now + tonumber(ARGV[1])
local out = {}
if ARGV[3] == '1' then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))) do
    local holder = redis.call('HGET', KEYS[3], id) or ''
    local reason = 'owner_lost'
    if string.sub(holder, 1, 8) == 'reaping:' then reason = string.sub(holder, 9) end
    redis.call('ZADD', KEYS[2], hold, id)
    redis.call('HSET', KEYS[3], id, 'reaping:' .. reason)
    table.insert(out, id)
    table.insert(out, reason)
  end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], hold, id)
  redis.call('HSET', KEYS[3], id, 'reaping:never_connected')
  table.insert(out, id)
  table.insert(out, 'never_connected')
end
return out
