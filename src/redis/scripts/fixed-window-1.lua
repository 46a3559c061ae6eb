--[[
  Fixed-window counter: checks and counts in one step, so a rejected request is never counted and
  concurrent callers can never overshoot the limit.

  Input:
    KEYS[1] counter of the current window

    ARGV[1] limit
    ARGV[2] cost (points this request needs)
    ARGV[3] window length (ms)

  Output:
    {1, points used after this call, ms until the window key expires}  allowed and counted
    {0, points used, ms until the window key expires}                  refused, nothing counted

  Writes:
    KEYS[1] INCRBY, and PEXPIRE when the window starts
]]
local limit = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + cost > limit then
  return {0, used, redis.call('PTTL', KEYS[1])}
end
used = redis.call('INCRBY', KEYS[1], cost)
if used == cost then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return {1, used, redis.call('PTTL', KEYS[1])}
