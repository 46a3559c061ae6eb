--[[
  The first round trip of a page of a session's durable log (`EventLog.page`): the last sequence given
  out and the large events the page may reach, from which the page is cut before it is read; and, when
  the page would hold a few events, none of them large, those events with what the overlay holds of
  them. A page of more events, or with a large one, is read on with plain commands, whose replies cost
  Redis far less than a script's (docs/decisions/sessions-and-events.md, "Large events").

  Input:
    KEYS[1] sequence counter
    KEYS[2] index of large events (sorted set of `<sequence>:<bytes>`, scored by the sequence)
    KEYS[3] durable log (`<sequence>-0` ids)
    KEYS[4] overlay (hash: `<event id>` status patch, `<event id>:turn`, `<event id>:payload`)

    ARGV[1] after: the page holds the events after this sequence
    ARGV[2] limit: the most events the page holds
    ARGV[3] the last sequence the page may hold ("": up to the counter)
    ARGV[4] the most events read here
    ARGV[5] the event type whose payload the overlay may replace

  Output:
    {counter, large, entries, overlay}
    counter  the sequence counter's value (false: none given out yet)
    large    the index's members scored in (after, after + limit]
    entries  false, or XRANGE's reply from after to the page's last possible sequence when that is at
             most ARGV[4] events, none of them in the index
    overlay  false, or for each entry in order: its status patch, its turn, and the length of its
             replacement payload (0 unless its type is ARGV[5])

  Writes:
    nothing
]]
local after = tonumber(ARGV[1])
local counter = redis.call('GET', KEYS[1])
local large = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], after + tonumber(ARGV[2]))
local last = math.min(tonumber(counter or '0'), after + tonumber(ARGV[2]))
if ARGV[3] ~= '' then
  last = math.min(last, tonumber(ARGV[3]))
end
if last <= after or last - after > tonumber(ARGV[4]) then
  return {counter or false, large, false, false}
end
if large[1] and tonumber(string.match(large[1], '^(%d+):')) <= last then
  return {counter or false, large, false, false}
end
local entries = redis.call('XRANGE', KEYS[3], '(' .. ARGV[1] .. '-0', string.format('%d-0', last))
local fields = {}
local replaced = {}
for i, entry in ipairs(entries) do
  local values = entry[2]
  local env, kind
  for j = 1, #values, 2 do
    if values[j] == 'env' then env = values[j + 1] elseif values[j] == 'type' then kind = values[j + 1] end
  end
  -- The envelope's JSON starts with its id; decoding it whole is the fallback.
  local id = string.match(env, '^{"id":"([^"\\]+)"') or cjson.decode(env).id
  fields[#fields + 1] = id
  fields[#fields + 1] = id .. ':turn'
  replaced[i] = kind == ARGV[5] and id or false
end
local overlay = {}
if #fields > 0 then
  local values = redis.call('HMGET', KEYS[4], unpack(fields))
  for i = 1, #entries do
    overlay[3 * i - 2] = values[2 * i - 1]
    overlay[3 * i - 1] = values[2 * i]
    overlay[3 * i] = replaced[i] and redis.call('HSTRLEN', KEYS[4], replaced[i] .. ':payload') or 0
  end
end
return {counter or false, large, entries, overlay}
