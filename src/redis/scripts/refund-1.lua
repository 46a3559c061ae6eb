--[[
  Gives points back to a window counter, only while that window's key still exists: a refund after the
  window ended must not leave a negative counter without expiry.

  Input:
    KEYS[1] counter of the window the points were taken from

    ARGV[1] points

  Output:
    the counter after the refund, or 0 when the window has ended

  Writes:
    KEYS[1] DECRBY
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('DECRBY', KEYS[1], ARGV[1])
end
return 0
