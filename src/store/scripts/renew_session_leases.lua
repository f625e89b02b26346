-- Renews the leases one process holds. A lease is lost when another holder has it (the reaper took
-- it after it expired) or its session is no longer active (ended elsewhere, e.g. agent deleted);
-- lost leases are not renewed, and the process stops those sessions.
-- KEYS[1] leases (zset)   KEYS[2] lease holders (hash)   KEYS[3 ..] the sessions' hashes, in ARGV order
-- ARGV[1] holder (instance id)   ARGV[2] lease TTL (ms)   ARGV[3 ..] session ids
-- Reply: the ids of lost leases
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = now + tonumber(ARGV[2])
local lost = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('HGET', KEYS[2], id) ~= ARGV[1] or redis.call('HGET', KEYS[i], 'status') ~= 'active' then
    table.insert(lost, id)
  else
    redis.call('ZADD', KEYS[1], expiry, id)
  end
end
return lost
