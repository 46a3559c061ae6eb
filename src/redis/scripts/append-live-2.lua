-- Appends a live-only frame (message deltas and other transport-only frames, never in history), if the
-- writer still holds the turn lock.
-- KEYS: 1 live stream, 2 turn lock. ARGV: 1 fencing token, 2 max length, 3 type, 4 envelope JSON.
-- Returns the stream id, or -2 when the token is not the lock holder's.
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -2
end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'type', ARGV[3], 'env', ARGV[4])
