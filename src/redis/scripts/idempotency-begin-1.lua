--[[
  Begins a request under an Idempotency-Key: the first takes the key (for a lease, while it runs); a
  later one with the same request gets the stored answer, or learns the first is still running; one
  with another request under the same key is refused.

  Input:
    KEYS[1] the key's record (hash: fingerprint, token, state running|done, status, body)

    ARGV[1] the request's fingerprint (a hash of its method, path and body)
    ARGV[2] a token naming this request (it alone may settle the record)
    ARGV[3] the lease (ms): a request that dies running frees the key after it

  Output:
    {'new'} | {'done', status, body or false} | {'running'} | {'mismatch'}

  Writes:
    KEYS[1] HSET, PEXPIRE (only when new)
]]
local found = redis.call('HMGET', KEYS[1], 'fingerprint', 'state', 'status', 'body')
if not found[1] then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'token', ARGV[2], 'state', 'running')
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'new'}
end
if found[1] ~= ARGV[1] then return {'mismatch'} end
if found[2] == 'done' then return {'done', found[3], found[4] or false} end
return {'running'}
