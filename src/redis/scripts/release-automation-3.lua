--[[
  Ends a scheduler's claim of an automation and schedules its next run, fenced: a claimer whose lease
  lapsed and was taken over changes nothing (the new holder settles). The next run time only ever
  moves a due member earlier (ZADD LT): a time read before a concurrent change can wake the automation
  early, where its record is read again, but never late.

  Input:
    KEYS[1] due sorted set (member: automation id, score: next run time, ms)
    KEYS[2] claims sorted set (member: automation id, score: lease deadline, ms)
    KEYS[3] claim owners hash (field: automation id, value: claimer's token)

    ARGV[1] automation id
    ARGV[2] claimer's token
    ARGV[3] next run time (ms), or "" for none

  Output:
    1 released, -2 fenced (the claim is no longer this claimer's)

  Writes:
    KEYS[1] ZADD; KEYS[2] ZREM; KEYS[3] HDEL
]]
if redis.call('HGET', KEYS[3], ARGV[1]) ~= ARGV[2] then
  return -2
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[1], 'LT', ARGV[3], ARGV[1])
end
return 1
