--[[
  Appends a live-only frame (message deltas and other transport-only frames, never in history), if the
  writer still holds the turn lock.

  Input:
    KEYS[1] live stream (capped)
    KEYS[2] turn lock (its value is the fencing token)

    ARGV[1] fencing token
    ARGV[2] live stream max length (approximate)
    ARGV[3] type
    ARGV[4] envelope JSON

  Output:
    {the stream's last id before it ("0-0": it was empty), the new stream id}
    -2  FENCED: the token is not the lock's current value

  Writes:
    KEYS[1] XADD * type, env
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -2
end
local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
return {newest and newest[1] or '0-0', redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'type', ARGV[3], 'env', ARGV[4])}
