-- Deletes a preset unless an agent uses it.
-- KEYS[1] preset record   KEYS[2] preset index   KEYS[3] preset's agent set
-- ARGV[1] preset id
-- Reply: {'ok'} | {'missing'} | {'in_use', agent_id...}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local users = redis.call('SMEMBERS', KEYS[3])
if #users > 0 then
  table.insert(users, 1, 'in_use')
  return users
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return {'ok'}
