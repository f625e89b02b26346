-- Counts sessions running in some process: leases not expired whose holder is a process (not a
-- reaper ending the session).
-- KEYS[1] leases (zset)   KEYS[2] lease holders (hash)
-- ARGV: none
-- Reply: the count
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
local live = 0
for _, id in ipairs(ids) do
  local holder = redis.call('HGET', KEYS[2], id)
  if holder and string.sub(holder, 1, 8) ~= 'reaping:' then live = live + 1 end
end
return live
