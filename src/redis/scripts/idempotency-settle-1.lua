--[[
  Settles a request begun under an Idempotency-Key, if the record is still the request's own (its lease
  may have run out and another taken the key): keeps its answer for the key's lifetime, or frees the
  key so the request can be sent again (it failed, and did nothing to repeat).

  Input:
    KEYS[1] the key's record (see idempotency-begin-1.lua)

    ARGV[1] the request's token
    ARGV[2] 'keep' or 'free'
    ARGV[3] the answer's status (keep)
    ARGV[4] the answer's body, or '' when too large to keep (keep)
    ARGV[5] how long (ms) the answer is kept (keep)

  Output:
    1 settled, 0 the record is not the request's any more

  Writes:
    KEYS[1] HSET, PEXPIRE (keep) or DEL (free)
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] == 'free' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'state', 'done', 'status', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'body', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
