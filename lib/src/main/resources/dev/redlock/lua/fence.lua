-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Raise a lock's fencing counter to the caller's candidate token, but only while this node's lock key still holds
-- the caller's token: a holder that lost the key here must not move the counter. The counter never goes down.
-- A later holder's quorum overlaps the quorum that confirmed this step on at least one node, where it then reads a
-- counter at least this high, so its own token is larger.
--
-- The candidate is larger than every token issued before (it came from a read the client trusted), so once it is
-- here the counter is complete again: it is tagged with the node's current incarnation marker, which makes it count
-- in later fencing reads even on a node that lost its data before.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's fencing counter, a hash {v, inc} (no TTL: it must outlive every lease)
-- KEYS[3]  optional: the node's incarnation marker (restart detection on)
-- ARGV[1]  the caller's token
-- ARGV[2]  the candidate fencing token
--
-- Returns  1 confirmed (the counter is now at least the candidate)
--          0 the lock key is absent here
--         -1 another owner holds the lock key
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  local counter = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
  if counter < tonumber(ARGV[2]) then
    redis.call('HSET', KEYS[2], 'v', ARGV[2])
  end
  if KEYS[3] then
    local id = redis.call('HGET', KEYS[3], 'id')
    if id then
      redis.call('HSET', KEYS[2], 'inc', id)
    end
  end
  return 1
elseif current == false then
  return 0
end
return -1
