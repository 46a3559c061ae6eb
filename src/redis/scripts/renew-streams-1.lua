--[[
  Renews the leases of a process's open event streams of one organization (`open-stream-1.lua`): each
  ends a lease length from now, by Redis's clock. A lease that had ended (a renewal missed, Redis
  restarted) is added back: its stream is still open, so it counts.

  Input:
    KEYS[1] the organization's open streams (sorted set: lease id → end of lease, ms)

    ARGV[1] lease length (ms)
    ARGV[2..] the lease ids

  Output:
    the number of leases renewed

  Writes:
    KEYS[1] ZADD, PEXPIRE
]]
local t = redis.call('TIME')
local ends = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], ends, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #ARGV - 1
