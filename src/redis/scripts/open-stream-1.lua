--[[
  Takes one of an organization's places for an open event stream, when one is free. Each open stream of
  every API process is a member whose score is when its lease ends (Redis's clock, so the processes'
  clocks never disagree about it); its process renews the lease while the stream is open
  (`renew-streams-1.lua`) and removes it when the stream closes, so the places of a process that died
  come free when their leases end.

  Input:
    KEYS[1] the organization's open streams (sorted set: lease id → end of lease, ms)

    ARGV[1] places (open streams at most)
    ARGV[2] this stream's lease id
    ARGV[3] lease length (ms)

  Output:
    {1, open streams with this one}   taken
    {0, open streams}                 refused, nothing taken

  Writes:
    KEYS[1] ZREMRANGEBYSCORE (ended leases), ZADD, PEXPIRE
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local open = redis.call('ZCARD', KEYS[1])
if open >= tonumber(ARGV[1]) then
  return {0, open}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, open + 1}
