--[[
  Removes a member from an intent set (wake-ups pending, projections due) only if nobody marked it
  again after the remover started acting on it.

  Input:
    KEYS[1] intent sorted set (member: session id, score: time marked, in ms)

    ARGV[1] session id
    ARGV[2] time (ms) the remover started acting on the session

  Output:
    1 removed, 0 kept (absent, or marked again since)

  Writes:
    KEYS[1] ZREM
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
