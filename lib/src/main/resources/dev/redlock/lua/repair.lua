-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Raise one fencing counter on a node whose counters are not intact (it lost its data since the cluster's counters
-- started) to a value read from nodes whose counters are, and tag it with the node's current incarnation, so that it
-- counts in fencing reads again. The node-level repair runs this for every counter, then marks the node intact.
--
-- KEYS[1]  the lock's fencing counter on this node, a hash {v, inc}
-- KEYS[2]  this node's incarnation marker
-- ARGV[1]  the value read from a quorum of intact nodes (or from every node): at least every token issued so far
-- ARGV[2]  the marker id the repair started with: if the node lost its data again meanwhile, nothing is written
--
-- Returns  1 written, 0 the marker changed (the repair starts over later)
if redis.call('HGET', KEYS[2], 'id') ~= ARGV[2] then
  return 0
end
local counter = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if counter < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'v', ARGV[1])
end
redis.call('HSET', KEYS[1], 'inc', ARGV[2])
return 1
