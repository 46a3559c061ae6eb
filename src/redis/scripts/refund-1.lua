-- Gives points back to a window counter, only while that window's key still exists: a refund after
-- the window ended must not leave a negative counter without expiry.
-- KEYS[1] counter; ARGV[1] points.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('DECRBY', KEYS[1], ARGV[1])
end
return 0
