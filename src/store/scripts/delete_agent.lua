-- Deletes an agent record, its index entry, token lookup and preset membership, atomically.
-- Sessions, conversations and error records of the agent stay as history.
-- KEYS[1] agent record   KEYS[2] agent index   KEYS[3] token lookup   KEYS[4] preset's agent set
-- KEYS[5] phone number index (hash: E.164 number -> agent id)
-- ARGV[1] agent id       ARGV[2] expected current record JSON   ARGV[3] its phone numbers (JSON array)
-- Reply: 'ok' | 'missing' | 'stale'
local current = redis.call('GET', KEYS[1])
if not current then return 'missing' end
if current ~= ARGV[2] then return 'stale' end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
for _, number in ipairs(cjson.decode(ARGV[3])) do
  if redis.call('HGET', KEYS[5], number) == ARGV[1] then redis.call('HDEL', KEYS[5], number) end
end
return 'ok'
