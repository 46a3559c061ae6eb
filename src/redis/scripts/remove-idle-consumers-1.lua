--[[
  Removes the named consumers of a group (those whose heartbeat lapsed: their processes died or
  stopped; each process start makes a consumer of its own) that still hold no entries and have not read
  for a while. Checked and removed in one step, so a consumer that reads an entry between the two is
  never removed with it (removing a consumer drops the entries it holds).

  Input:
    KEYS[1] the stream

    ARGV[1] the group
    ARGV[2] idle time (ms) from which a consumer with nothing pending is taken for gone
    ARGV[3] a consumer never removed (the caller's own)
    ARGV[4..] the consumers to remove, if they hold nothing and are idle that long

  Output:
    the number of consumers removed

  Writes:
    KEYS[1] XGROUP DELCONSUMER
]]
local named = {}
for i = 4, #ARGV do named[ARGV[i]] = true end
local removed = 0
for _, flat in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local info = {}
  for i = 1, #flat, 2 do info[flat[i]] = flat[i + 1] end
  if named[info['name']] and info['name'] ~= ARGV[3] and tonumber(info['pending']) == 0 and tonumber(info['idle']) >= tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], info['name'])
    removed = removed + 1
  end
end
return removed
