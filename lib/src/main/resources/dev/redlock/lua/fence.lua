-- Raise a lock's fencing counter to the caller's candidate token, but only while this node's lock key still holds
-- the caller's token: a holder that lost the key here must not move the counter. The counter never goes down.
-- A later holder's quorum overlaps the quorum that confirmed this step on at least one node, where it then reads a
-- counter at least this high, so its own token is larger.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's fencing counter (no TTL: it must outlive every lease)
-- ARGV[1]  the caller's token
-- ARGV[2]  the candidate fencing token
--
-- Returns  1 confirmed (the counter is now at least the candidate)
--          0 the lock key is absent here
--         -1 another owner holds the lock key
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  local counter = tonumber(redis.call('GET', KEYS[2]) or '0')
  if counter < tonumber(ARGV[2]) then
    redis.call('SET', KEYS[2], ARGV[2])
  end
  return 1
elseif current == false then
  return 0
end
return -1
