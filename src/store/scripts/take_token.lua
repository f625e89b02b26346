-- Token bucket: takes one token if there is one. Time comes from the Redis server, so every
-- Parley instance sharing this Redis sees one bucket.
-- KEYS[1] bucket hash (fields: tokens, ts)
-- ARGV[1] capacity (burst)   ARGV[2] refill per minute (rpm)
-- Reply: {allowed 0|1, tokens left (floor), ms until full, ms until the next token (0 if one is left)}
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2]) / 60000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * per_ms)
local allowed = 0
if tokens >= 1 then
  allowed = 1
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
local until_full = math.ceil((capacity - tokens) / per_ms)
redis.call('PEXPIRE', KEYS[1], until_full + 1000)
local until_next = 0
if tokens < 1 then until_next = math.ceil((1 - tokens) / per_ms) end
return {allowed, math.floor(tokens), until_full, until_next}
