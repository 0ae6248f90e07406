-- Extend a lock key's expiry only if it still holds the caller's token, and only if no newer extension of the same
-- lease ran here first. It never creates the key: an extension must not resurrect a lock that is gone.
--
-- A lease numbers its extension rounds. Two of them can reach a node out of order (the first went out on a connection
-- that was then dropped as stalled, the second on a new one), and the older one must not undo the newer: its TTL may
-- be shorter than the lease's deadline now assumes. So each node remembers the newest round it applied.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lease's extension sequence on this node (same hash tag; lives as long as the lock key)
-- ARGV[1]  the caller's token
-- ARGV[2]  the new time to live, in milliseconds
-- ARGV[3]  this extension round's number within the lease (increasing)
--
-- Returns  1 extended (or a newer round already did: the key holds our token and lives on)
--          0 absent   (the key had already expired)
--         -1 another owner holds the key (left untouched)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  local newest = redis.call('GET', KEYS[2])
  local at = newest and string.find(newest, ':', 1, true)
  if at and string.sub(newest, 1, at - 1) == ARGV[1] and tonumber(string.sub(newest, at + 1)) >= tonumber(ARGV[3]) then
    return 1
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[1] .. ':' .. ARGV[3], 'PX', ARGV[2])
  return 1
elseif current == false then
  return 0
end
return -1
