-- Creates a document record unless the agent already has one with the same content.
-- KEYS[1] agent record   KEYS[2] document hash   KEYS[3] agent documents zset
-- KEYS[4] agent sha256 → document id hash   KEYS[5] rag agents set
-- ARGV[1] document id   ARGV[2] sha256   ARGV[3] score (created, Unix ms)   ARGV[4] agent id
-- ARGV[5..] field, value pairs of the document hash
-- Reply: 'ok' | 'no_agent' | {'duplicate', existing document id}
if redis.call('EXISTS', KEYS[1]) == 0 then return 'no_agent' end
local existing = redis.call('HGET', KEYS[4], ARGV[2])
if existing then return {'duplicate', existing} end
redis.call('HSET', KEYS[2], unpack(ARGV, 5))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[4])
return 'ok'
