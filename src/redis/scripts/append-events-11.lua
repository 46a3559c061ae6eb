--[[
  Commits one plan of a session's state machine atomically, in one round trip: checks that the writer
  may (the session exists, the fencing token holds, every state field the plan was made from is
  unchanged) and that the allowance has room, then gives the durable drafts consecutive sequences,
  appends each to the durable log (stream id "<sequence>-0") and to the live stream, writes the state
  fields and the event-status overlay, increments the state version, counts the allowance, marks the
  intents and publishes the wake-up.

  The check is on the fields the plan read, not on the state version: a plan stays valid while what it
  was made from holds, so writers that touch different fields (steers beside a running turn) never
  refuse each other. A field the plan read is compared with the exact string it read.

  Input:
    KEYS[1] state hash (runtime state; field "v" is its version)
    KEYS[2] sequence counter
    KEYS[3] durable log stream
    KEYS[4] live stream (capped)
    KEYS[5] turn lock (its value is the fencing token)
    KEYS[6] status overlay hash
    KEYS[7] `pending` intent set (sessions with work for a worker)
    KEYS[8] `projections` intent set (writers changing a session's MongoDB record)
    KEYS[9] wake-up stream
    KEYS[10] allowance counter of the current window (unused when ARGV[5] is 0)
    KEYS[11] the log's index of large events (sorted set: "<sequence>:<bytes>" scored by the sequence)

    ARGV[1] fencing token ("" = the writer holds no lock: an API pod)
    ARGV[2] now (ms): the score of the intent marks
    ARGV[3] live stream max length (approximate)
    ARGV[4] allowance limit
    ARGV[5] allowance cost (0 = nothing to count)
    ARGV[6] allowance window length (ms)
    ARGV[7] the session id when the plan wakes a worker (marks `pending`, publishes a wake-up); "" = no wake
    ARGV[8] `projections` member to mark ("" = the plan keeps the record's status)
    ARGV[9] wake-up stream max length (approximate)
    ARGV[10] the request's once-mark: an overlay field naming its Idempotency-Key ("" = none)
    ARGV[11] what the mark keeps: the request's fingerprint and which durable drafts answer it
    ARGV[12] the W3C `traceparent` the wake-up carries ("" = none: tracing is off, or no wake)
    ARGV[13] number of read fields R, then R x (field, "=" .. value read, or "" when it was absent)
    then    number of drafts N, then N groups of five:
              envelope JSON before the sequence, envelope JSON after it, type, turn id,
              "log" (durable), "large" (durable, and LARGE_EVENT_BYTES or more: the live stream gets a
              stub of it, `large-events.ts`), "live" (live-only; its whole envelope is the first part)
              or "patched" (live-only and large, its envelope without the replacement payload it
              carries; the second part names the event whose overlay `<id>:payload` holds that payload)
    then    number of state field pairs M, then M x (field, value)
    then    number of overlay pairs K, then K x (field, value)

  Output:
    {first sequence (0 when no durable draft), new state version, allowance used, allowance ms to
     reset, the live stream's last id before the drafts ("0-0": it was empty, or there are no drafts),
     live id of each draft...}
    {-1, state hash as a flat list}  STALE:   a field the plan read has changed; the state as it now is
    {-2}                             FENCED:  the fencing token is not the lock's current value
    {-3}                             MISSING: the session has no state (it was deleted; creation writes
                                              it first), so a late writer cannot resurrect its keys
    {-4, allowance used, ms to reset} RATE_LIMITED: the allowance has no room for the cost
    {-5, the mark's value}           DONE:    a request under this Idempotency-Key was committed
                                              already (its first attempt died before it could answer);
                                              nothing is written, nothing counted

  Writes:
    KEYS[3] XADD "<seq>-0"  type, seq, turn, live, env   (one per durable draft)
    KEYS[4] XADD *          type, seq, env                (durable drafts)
    KEYS[4] XADD *          type, seq, bytes              (large ones: a stub; the event is in the log)
    KEYS[11] ZADD <seq> "<seq>:<bytes>"                   (large ones)
    KEYS[4] XADD *          type, env                     (live-only drafts)
    KEYS[4] XADD *          type, env, patch              (patched ones: `patch` is the event id)
    KEYS[2] INCRBY, KEYS[1] HSET + HINCRBY v, KEYS[6] HSET (+ the once-mark: ARGV[11] .. " " .. first sequence)
    KEYS[10] INCRBY (+ PEXPIRE when the window starts)
    KEYS[7] ZADD, KEYS[9] XADD session (+ traceparent when ARGV[12] is not "")  (wake)
    KEYS[8] ZADD                         (projection)
]]
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {-3}
end
if ARGV[1] ~= '' and redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return {-2}
end
if ARGV[10] ~= '' then
  local done = redis.call('HGET', KEYS[6], ARGV[10])
  if done then
    return {-5, done}
  end
end

local i = 13
local reads = tonumber(ARGV[i])
i = i + 1
for _ = 1, reads do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  local expected = ARGV[i + 1]
  if (current and ('=' .. current) or '') ~= expected then
    return {-1, redis.call('HGETALL', KEYS[1])}
  end
  i = i + 2
end

local cost = tonumber(ARGV[5])
local used = 0
if cost > 0 then
  used = tonumber(redis.call('GET', KEYS[10]) or '0')
  if used + cost > tonumber(ARGV[4]) then
    return {-4, used, redis.call('PTTL', KEYS[10])}
  end
  used = redis.call('INCRBY', KEYS[10], cost)
  if used == cost then
    redis.call('PEXPIRE', KEYS[10], ARGV[6])
  end
end

local maxlen = ARGV[3]
local n = tonumber(ARGV[i])
i = i + 1
local durable = 0
for k = 0, n - 1 do
  local mode = ARGV[i + k * 5 + 4]
  if mode == 'log' or mode == 'large' then durable = durable + 1 end
end
local newest = n > 0 and redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)[1] or nil
local result = {0, 0, used, cost > 0 and redis.call('PTTL', KEYS[10]) or 0, newest and newest[1] or '0-0'}
local seq = 0
if durable > 0 then
  seq = redis.call('INCRBY', KEYS[2], durable) - durable
  result[1] = seq + 1
end
for _ = 1, n do
  local etype, turn, mode = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local liveId
  if mode == 'live' then
    liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'env', ARGV[i])
  elseif mode == 'patched' then
    liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'env', ARGV[i], 'patch', ARGV[i + 1])
  else
    seq = seq + 1
    local env = ARGV[i] .. seq .. ARGV[i + 1]
    if mode == 'large' then
      liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'seq', seq, 'bytes', #env)
      redis.call('ZADD', KEYS[11], seq, seq .. ':' .. #env)
    else
      liveId = redis.call('XADD', KEYS[4], 'MAXLEN', '~', maxlen, '*', 'type', etype, 'seq', seq, 'env', env)
    end
    redis.call('XADD', KEYS[3], seq .. '-0', 'type', etype, 'seq', seq, 'turn', turn, 'live', liveId, 'env', env)
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
if ARGV[10] ~= '' then
  redis.call('HSET', KEYS[6], ARGV[10], ARGV[11] .. ' ' .. result[1])
end
result[2] = redis.call('HINCRBY', KEYS[1], 'v', 1)

if ARGV[7] ~= '' then
  redis.call('ZADD', KEYS[7], ARGV[2], ARGV[7])
  if ARGV[12] ~= '' then
    redis.call('XADD', KEYS[9], 'MAXLEN', '~', ARGV[9], '*', 'session', ARGV[7], 'traceparent', ARGV[12])
  else
    redis.call('XADD', KEYS[9], 'MAXLEN', '~', ARGV[9], '*', 'session', ARGV[7])
  end
end
if ARGV[8] ~= '' then
  redis.call('ZADD', KEYS[8], ARGV[2], ARGV[8])
end
return result
