--[[
  Begins a request under an Idempotency-Key: the first takes the key (for a lease, while it runs); a
  later one with the same request gets the stored answer, or learns the first is still running; one
  with another request under the same key is refused. A request whose lease lapsed (its process died
  before settling) may have done its work: the retry takes the key over with the same id seed, so a
  create finds what the first attempt made instead of making it again.

  Input:
    KEYS[1] the key's record (hash: fingerprint, token, state running|done, leaseUntil, seed, status, body)

    ARGV[1] the request's fingerprint (an HMAC of its method, path and body, keyed by the key)
    ARGV[2] a token naming this request (it alone may settle the record)
    ARGV[3] the lease (ms): a request that dies running lets a retry take the key after it
    ARGV[4] an id seed for the request's resource, if it is the first under the key
    ARGV[5] how long (ms) the record lives: the key's lifetime

  Output:
    {'new', seed, retaken 0|1} | {'done', status, body or false} | {'running'} | {'mismatch'}

  Writes:
    KEYS[1] HSET, PEXPIRE (only when new or taken over)
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local found = redis.call('HMGET', KEYS[1], 'fingerprint', 'state', 'status', 'body', 'leaseUntil', 'seed')
if not found[1] then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'token', ARGV[2], 'state', 'running', 'leaseUntil', now + tonumber(ARGV[3]), 'seed', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'new', ARGV[4], 0}
end
if found[1] ~= ARGV[1] then return {'mismatch'} end
if found[2] == 'done' then return {'done', found[3], found[4] or false} end
if tonumber(found[5]) > now then return {'running'} end
redis.call('HSET', KEYS[1], 'token', ARGV[2], 'leaseUntil', now + tonumber(ARGV[3]))
return {'new', found[6], 1}
