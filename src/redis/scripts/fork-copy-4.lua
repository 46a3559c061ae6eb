--[[
  Appends one page of a fork's copied history to the new session's keys (`fork-copier.ts`). The keys
  live for a while only (ARGV[2]) until the last page, which writes the runtime state and makes them
  permanent: a copy whose process died midway leaves nothing that lasts, and no state, so the new
  session is never seen half made (its MongoDB record, inserted after this, is what makes it visible).

  Input:
    KEYS[1] the new session's durable log stream
    KEYS[2] its sequence counter
    KEYS[3] its index of large events (sorted set: "<sequence>:<bytes>" scored by the sequence)
    KEYS[4] its state hash

    ARGV[1] the page's first sequence; 1 on the first page, which first deletes what an earlier attempt
            under the same id left
    ARGV[2] how long the keys live while the copy is not done (ms)
    ARGV[3] from this many bytes of envelope an event is large (LARGE_EVENT_BYTES)
    ARGV[4] "last" on the last page, else "more"
    ARGV[5] number of entries N, then N x (sequence, type, turn id or "", envelope JSON), in sequence order
    then    on the last page: number of state field pairs M, then M x (field, value)

  Output:
    {the last sequence copied}
    {-3}  MISSING: the pages before this one are gone (their keys expired); nothing is written

  Writes:
    KEYS[1..4] DEL                                          (first page)
    KEYS[1] XADD "<seq>-0" type, seq, turn, live "0-0", env (one per entry; the copy has no live stream yet)
    KEYS[3] ZADD <seq> "<seq>:<bytes>"                      (large entries)
    KEYS[2] SET the last sequence
    KEYS[1..3] PEXPIRE ARGV[2]                              (not the last page)
    KEYS[4] HSET, KEYS[1..3] PERSIST                        (last page)
]]
local first = tonumber(ARGV[1])
if first == 1 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
elseif tonumber(redis.call('GET', KEYS[2]) or '-1') ~= first - 1 then
  return {-3}
end

local large = tonumber(ARGV[3])
local n = tonumber(ARGV[5])
local i = 6
local seq = first - 1
for _ = 1, n do
  seq = tonumber(ARGV[i])
  local env = ARGV[i + 3]
  redis.call('XADD', KEYS[1], seq .. '-0', 'type', ARGV[i + 1], 'seq', seq, 'turn', ARGV[i + 2], 'live', '0-0', 'env', env)
  if #env >= large then
    redis.call('ZADD', KEYS[3], seq, seq .. ':' .. #env)
  end
  i = i + 4
end
redis.call('SET', KEYS[2], seq)

if ARGV[4] ~= 'last' then
  for k = 1, 3 do
    redis.call('PEXPIRE', KEYS[k], ARGV[2])
  end
  return {seq}
end
local m = tonumber(ARGV[i])
i = i + 1
for _ = 1, m do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for k = 1, 3 do
  redis.call('PERSIST', KEYS[k])
end
return {seq}
