--[[
  Applies one plan of a session's state machine atomically: checks the state version (compare-and-set)
  and the writer's fencing token, gives the durable drafts consecutive sequences, appends each draft to
  the durable log (stream id "<sequence>-0") and to the live stream, writes the state fields and the
  event-status overlay, and increments the state version.

  Input:
    KEYS[1] state hash (runtime state; field "v" is its version)
    KEYS[2] sequence counter
    KEYS[3] durable log stream
    KEYS[4] live stream (capped)
    KEYS[5] turn lock (its value is the fencing token)
    KEYS[6] status overlay hash

    ARGV[1] expected state version ("" = any)
    ARGV[2] fencing token ("" = the writer holds no lock: an API pod)
    ARGV[3] live stream max length (approximate)
    ARGV[4] number of drafts N, then N groups of five:
              envelope JSON before the sequence, envelope JSON after it, type, turn id,
              "log" (durable) or "live" (live-only; its whole envelope is the first part)
    then    number of state field pairs M, then M x (field, value)
    then    number of overlay pairs K, then K x (field, value)

  Output:
    {first sequence (0 when no durable draft), new state version, live id of each draft...}
    {-1, current version}  STALE:   the state is not at the expected version
    {-2}                   FENCED:  the fencing token is not the lock's current value
    {-3}                   MISSING: the session has no state (it was deleted; creation writes it
                                    first), so a late writer cannot resurrect its keys

  Writes:
    KEYS[3] XADD "<seq>-0"  type, seq, turn, live, env   (one per durable draft)
    KEYS[4] XADD *          type, seq, env                (durable drafts)
    KEYS[4] XADD *          type, env                     (live-only drafts)
    KEYS[2] INCRBY, KEYS[1] HSET + HINCRBY v, KEYS[6] HSET
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-3}
end
local expected = ARGV[1]
local current = redis.call('HGET', KEYS[1], 'v') or '0'
if expected ~= '' and current ~= expected then
  return {-1, tonumber(current)}
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[2] then
  return {-2}
end

local maxlen = ARGV[3]
local n = tonumber(ARGV[4])
local durable = 0
for k = 0, n - 1 do
  if ARGV[5 + k * 5 + 4] == 'log' then durable = durable + 1 end
end
local i = 5
local result = {0, 0}
local seq = 0
if durable > 0 then
  seq = redis.call('INCRBY', KEYS[2], durable) - durable
  result[1] = seq + 1
end
for _ = 1, n do
  local etype, turn, mode = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local liveId
  if mode == 'log' then
    seq = seq + 1
    local env = ARGV[i] .. seq .. ARGV[i + 1]
    liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'seq', seq, 'env', env)
    redis.call('XADD', KEYS[3], seq .. '-0', 'type', etype, 'seq', seq, 'turn', turn, 'live', liveId, 'env', env)
  else
    liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'env', ARGV[i])
  end
  result[#result + 1] = liveId
  i = i + 5
end

-- Writes the next counted list of (field, value) pairs of ARGV into `key`.
local function hsetPairs(key)
  local count = tonumber(ARGV[i])
  i = i + 1
  for _ = 1, count do
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
    i = i + 2
  end
end
hsetPairs(KEYS[1])
hsetPairs(KEYS[6])

result[2] = redis.call('HINCRBY', KEYS[1], 'v', 1)
return result
