-- Creates or updates an agent record with its index, token lookup and preset membership, atomically.
-- KEYS[1] agent record        KEYS[2] agent index (zset)
-- KEYS[3] new token lookup    KEYS[4] old token lookup
-- KEYS[5] new preset record   KEYS[6] new preset's agent set   KEYS[7] old preset's agent set
-- KEYS[8] phone number index (hash: E.164 number -> agent id)
-- ARGV[1] agent id            ARGV[2] new record JSON
-- ARGV[3] expected current record JSON ('' when creating)
-- ARGV[4] index score (creation time, ms)
-- ARGV[5] new preset id ('' for none)   ARGV[6] old preset id ('' for none)
-- ARGV[7] new phone numbers (JSON array)   ARGV[8] old phone numbers (JSON array)
-- Reply: 'ok' | 'exists' | 'missing' | 'stale' | 'preset_missing' | {'phone_taken', number, agent id}
local current = redis.call('GET', KEYS[1])
if ARGV[3] == '' then
  if current then return 'exists' end
else
  if not current then return 'missing' end
  if current ~= ARGV[3] then return 'stale' end
end
if ARGV[5] ~= '' and redis.call('EXISTS', KEYS[5]) == 0 then return 'preset_missing' end
local numbers = cjson.decode(ARGV[7])
for _, number in ipairs(numbers) do
  local owner = redis.call('HGET', KEYS[8], number)
  if owner and owner ~= ARGV[1] then return {'phone_taken', number, owner} end
end
local keep = {}
for _, number in ipairs(numbers) do keep[number] = true end
for _, number in ipairs(cjson.decode(ARGV[8])) do
  if not keep[number] and redis.call('HGET', KEYS[8], number) == ARGV[1] then redis.call('HDEL', KEYS[8], number) end
end
for _, number in ipairs(numbers) do redis.call('HSET', KEYS[8], number, ARGV[1]) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
if KEYS[3] ~= KEYS[4] then
  if ARGV[3] ~= '' then redis.call('DEL', KEYS[4]) end
  redis.call('SET', KEYS[3], ARGV[1])
elseif ARGV[3] == '' then
  redis.call('SET', KEYS[3], ARGV[1])
end
if ARGV[5] ~= ARGV[6] then
  if ARGV[6] ~= '' then redis.call('SREM', KEYS[7], ARGV[1]) end
  if ARGV[5] ~= '' then redis.call('SADD', KEYS[6], ARGV[1]) end
end
return 'ok'
