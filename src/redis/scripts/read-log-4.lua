--[[
  Reads a page of a session's durable log with the event-status overlay merged in, in one round trip,
  cut by bytes before it is read: the index of large events (`large-events.ts`) says where the page
  would pass the budget, so no more than the budget is ever loaded, whatever the log holds.

  A page holds the events after ARGV[1], at most ARGV[3] of them, up to ARGV[2], and no more than
  ARGV[4] / ARGV[5] of them. It stops before the first large event that would take it past ARGV[4]
  bytes, counting every event the index does not name as ARGV[5] bytes (an upper bound: they are
  smaller), and before the first replacement payload in the overlay that would. So a page of several
  events holds at most ARGV[4] bytes of envelopes and payloads; an event that does not fit in an empty
  page is read alone, so a page is never empty while the log holds more.

  Input:
    KEYS[1] durable log stream (ids "<sequence>-0")
    KEYS[2] the log's index of large events (sorted set: "<sequence>:<bytes>" scored by the sequence)
    KEYS[3] status overlay hash (`<eventId>`, `<eventId>:turn`, `<eventId>:payload`)
    KEYS[4] sequence counter (the last sequence given out: the commit appends in the same step)

    ARGV[1] after: the page starts after this sequence
    ARGV[2] up to this sequence, inclusive ("" = the log's end)
    ARGV[3] at most this many events
    ARGV[4] the page's budget in bytes
    ARGV[5] the bytes counted for an event the index does not name

  Output:
    {more (1: the page is not empty and the log holds events after it, up to ARGV[2]; else 0), then five per event:
     envelope JSON, live-stream id, overlay status patch, turn id, replacement payload (each absent one nil)}

  The event's id, which keys the overlay, is read from the start of its envelope: the commit writes the
  id first (`event-appender.ts`, `template`); an envelope that does not start with it has no overlay.
]]
local after = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[4]) or '0')
if ARGV[2] ~= '' then
  last = math.min(last, tonumber(ARGV[2]))
end
local budget, small = tonumber(ARGV[4]), tonumber(ARGV[5])
local stop = math.min(last, after + tonumber(ARGV[3]), after + math.max(1, math.floor(budget / small)))
if stop <= after then
  return {0}
end

-- Every event counted at the small bound, then each large one at its size instead.
local spent = (stop - after) * small
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. after, stop)) do
  local at, size = string.match(member, '^(%d+):(%d+)$')
  at, size = tonumber(at), tonumber(size)
  if spent - small + size > budget then
    stop = at > after + 1 and at - 1 or at
    break
  end
  spent = spent - small + size
end

local reply = {0}
local read = after
for n, entry in ipairs(redis.call('XRANGE', KEYS[1], '(' .. after .. '-0', stop .. '-0')) do
  local fields = entry[2]
  local env, live
  for k = 1, #fields, 2 do
    if fields[k] == 'env' then
      env = fields[k + 1]
    elseif fields[k] == 'live' then
      live = fields[k + 1]
    end
  end
  local id = string.match(env, '^{"id":"([^"]+)"')
  local payloadBytes = id and redis.call('HSTRLEN', KEYS[3], id .. ':payload') or 0
  local alone = payloadBytes > 0 and spent + payloadBytes > budget
  if alone and n > 1 then
    break
  end
  spent = spent + payloadBytes
  local status, turn = false, false
  if id then
    status, turn = unpack(redis.call('HMGET', KEYS[3], id, id .. ':turn'))
  end
  local payload = payloadBytes > 0 and redis.call('HGET', KEYS[3], id .. ':payload') or false
  reply[#reply + 1] = env
  reply[#reply + 1] = live or false
  reply[#reply + 1] = status
  reply[#reply + 1] = turn
  reply[#reply + 1] = payload
  read = tonumber(string.match(entry[1], '^(%d+)'))
  if alone then
    break
  end
end
if read > after and read < last then
  reply[1] = 1
end
return reply
