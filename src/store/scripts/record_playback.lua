-- Records how the playback of a voice answer ended: the stored agent message (found among the
-- newest ones) gets its final status, the text actually spoken and its completed timings; an
-- answer newly interrupted counts in the agent's interrupted_turns; and the outbox entry of
-- `audio_ready` is written in the same step. A message's playback is recorded once: a retried
-- write (its reply lost) changes nothing.
-- KEYS[1] conversation's messages (list)   KEYS[2] agent stats hash   KEYS[3] event outbox (list)
-- KEYS[4] ids of the conversation's messages whose playback is recorded (set)
-- ARGV[1] message id   ARGV[2] status   ARGV[3] spoken text   ARGV[4] timings JSON (object)
-- ARGV[5] now (Unix ms)   ARGV[6] outbox entry JSON, '' for none
-- Reply: 'ok' | 'missing' | 'duplicate'
local tail = redis.call('LRANGE', KEYS[1], -32, -1)
local needle = '"id":"' .. ARGV[1] .. '"'
for i = #tail, 1, -1 do
  if string.find(tail[i], needle, 1, true) then
    if redis.call('SADD', KEYS[4], ARGV[1]) == 0 then return 'duplicate' end
    local message = cjson.decode(tail[i])
    local timings = cjson.decode(ARGV[4])
    local newly_interrupted = ARGV[2] == 'interrupted' and message.status ~= 'interrupted'
    local merged = type(message.timings) == 'table' and message.timings or {}
    for name, ms in pairs(timings) do merged[name] = ms end
    message.timings = merged
    message.status = ARGV[2]
    message.text = ARGV[3]
    redis.call('LSET', KEYS[1], i - #tail - 1, cjson.encode(message))
    if newly_interrupted then redis.call('HINCRBY', KEYS[2], 'interrupted_turns', 1) end
    redis.call('HSET', KEYS[2], 'last_active_ms', ARGV[5])
    if ARGV[6] ~= '' then redis.call('RPUSH', KEYS[3], ARGV[6]) end
    return 'ok'
  end
end
return 'missing'
