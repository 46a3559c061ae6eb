-- Removes a session from the pending set only if nobody marked it again after the worker looked.
-- KEYS[1] pending sorted set; ARGV[1] session id, ARGV[2] time (ms) the worker started looking.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
