-- Acquire a lock key (SET NX PX) and, when granted, report this node's fencing counter.
-- The caller takes the largest counter over a quorum of grants, plus one, as its candidate fencing token.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's fencing counter (same hash tag as the lock key)
-- ARGV[1]  the caller's token
-- ARGV[2]  the time to live, in milliseconds
--
-- Returns  the counter (0 if the node never saw one) when granted, or -1 when another owner holds the key.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return tonumber(redis.call('GET', KEYS[2]) or '0')
end
return -1
