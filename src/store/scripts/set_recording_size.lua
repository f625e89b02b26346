-- A conversation's call recording is complete: its size goes on the conversation's record, unless
-- the conversation was deleted meanwhile (nothing is written then: no half record comes back).
-- KEYS[1] conversation hash
-- ARGV[1] bytes of the WAV file
-- Reply: 'ok' | 'missing'
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
redis.call('HSET', KEYS[1], 'recording_bytes', ARGV[1])
return 'ok'
