-- Applies one plan to a session atomically: check the state version (compare-and-set) and the writer's
-- fencing token, give the drafts consecutive sequences, append each to the durable log (stream id
-- "<sequence>-0") and to the live stream, write the state fields and the event-status overlay.
-- KEYS: 1 state hash, 2 sequence counter, 3 durable log, 4 live stream, 5 turn lock, 6 status overlay
-- ARGV: 1 expected state version ("" = any), 2 fencing token ("" = none), 3 live stream max length,
--       4 number of events N, then N x (envelope before the sequence, envelope after it, type, turn id,
--       "log" for a durable event or "live" for a live-only frame, whose whole envelope is the first part),
--       then the number of state field pairs M and M x (field, value),
--       then the number of overlay pairs K and K x (event id, status JSON).
-- Returns {first sequence or 0, new state version, live ids...}; {-1, current version} on a version
-- mismatch; {-2} when the fencing token is not the current lock holder's; {-3} when the session has no
-- state (it was deleted: creation writes the state first), so a late writer cannot resurrect its keys.
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
