--[[
  Claims due automations for one scheduler: first those whose claim lapsed (their holder died or
  stalled), then those whose next run time has come. A claim is a lease: the member moves to the claims
  set, scored by its deadline, with the claimer's token beside it. Two schedulers never hold one
  automation: a due member already held by a live claim is put back for when that claim lapses.

  Input:
    KEYS[1] due sorted set (member: automation id, score: next run time, ms)
    KEYS[2] claims sorted set (member: automation id, score: lease deadline, ms)
    KEYS[3] claim owners hash (field: automation id, value: claimer's token)

    ARGV[1] now (ms)
    ARGV[2] lease (ms)
    ARGV[3] at most this many claims
    ARGV[4] claimer's token

  Output:
    the claimed automation ids, lapsed claims first

  Writes:
    KEYS[1] ZREM, ZADD; KEYS[2] ZADD; KEYS[3] HSET
]]
local now = tonumber(ARGV[1])
local deadline = now + tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local claimed = {}

local function claim(id)
  redis.call('ZADD', KEYS[2], deadline, id)
  redis.call('HSET', KEYS[3], id, ARGV[4])
  claimed[#claimed + 1] = id
end

for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)) do
  claim(id)
end

if #claimed < limit then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit - #claimed)) do
    redis.call('ZREM', KEYS[1], id)
    local held = redis.call('ZSCORE', KEYS[2], id)
    if not held then
      claim(id)
    elseif redis.call('HGET', KEYS[3], id) ~= ARGV[4] then
      redis.call('ZADD', KEYS[1], held, id)
    end
  end
end
return claimed
