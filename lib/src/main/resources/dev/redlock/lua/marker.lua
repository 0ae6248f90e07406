-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Maintain a node's incarnation marker (see acquire.lua), compare-and-set on the marker id, so that of several
-- clients that notice the same change only the first acts.
--
-- KEYS[1]  the node's incarnation marker, a hash {id, run, born, intact}
-- ARGV[1]  what to do:
--            'rotate'  the server restarted (its run_id is not the marker's) and may have lost recent writes: start
--                      a new incarnation (new id, born now, counters not intact)
--            'adopt'   the server restarted but persists every write (appendfsync always, trusted by the client):
--                      record its run_id, nothing was lost
--            'intact'  the node's fencing counters were all repaired (repair.lua) from a quorum of intact nodes, or
--                      from every node: they count in fencing reads again
-- ARGV[2]  the marker id the client saw
-- ARGV[3]  rotate, adopt: the run_id of the server now
-- ARGV[4]  rotate: the new marker id
--
-- Returns  1 done, 0 nothing to do (it already says so), -1 the marker changed meanwhile
local m = redis.call('HMGET', KEYS[1], 'id', 'run', 'intact')
if m[1] ~= ARGV[2] then
  return -1
end
if ARGV[1] == 'intact' then
  if m[3] == '1' then
    return 0
  end
  redis.call('HSET', KEYS[1], 'intact', '1')
  return 1
end
if m[2] == ARGV[3] then
  return 0
end
if ARGV[1] == 'adopt' then
  redis.call('HSET', KEYS[1], 'run', ARGV[3])
  return 1
end
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'id', ARGV[4], 'run', ARGV[3], 'born', tostring(t[1] * 1000 + math.floor(t[2] / 1000)),
    'intact', '0')
return 1
