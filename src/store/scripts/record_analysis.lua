-- Stores a conversation's post-call analysis once, with its `analysis_ready` event in the same
-- step. A second call (a retried or duplicated job) changes nothing.
-- KEYS[1] conversation hash   KEYS[2] event outbox (list)
-- ARGV[1] analysis JSON   ARGV[2] outbox entry JSON, '' for none
-- Reply: 'ok' | 'exists' (already stored: nothing written) | 'missing'
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HEXISTS', KEYS[1], 'analysis') == 1 then return 'exists' end
redis.call('HSET', KEYS[1], 'analysis', ARGV[1])
if ARGV[2] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[2]) end
return 'ok'
