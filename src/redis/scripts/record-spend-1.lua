--[[
  Records a session's spend so far in its subject's spend hash and answers the subject's total. A
  session's spend only grows, so the field keeps the largest value it was given and the total moves by
  the difference: recording the same or an older figure again (a retry, a worker that read an older
  state) changes nothing, and a figure a crash left unrecorded is included by the session's next one.

  Input:
    KEYS[1] the subject's spend hash: session id -> micro-dollars, and '#total'

    ARGV[1] session id
    ARGV[2] the session's spend so far, in micro-dollars (an integer, 0 only reads)

  Output:
    the subject's total spend in micro-dollars

  Writes:
    KEYS[1] HSET ARGV[1], HINCRBY '#total'
]]
local given = tonumber(ARGV[2])
local before = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if given > before then
  redis.call('HSET', KEYS[1], ARGV[1], given)
  return redis.call('HINCRBY', KEYS[1], '#total', given - before)
end
return tonumber(redis.call('HGET', KEYS[1], '#total') or '0')
