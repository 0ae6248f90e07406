-- Acquire a lock key on one node: SET NX PX, plus what the client needs to judge the vote, in one atomic step.
--
-- KEYS[1]  the lock key
-- KEYS[2]  this token's release tombstone: a release that ran before this acquire (the two travelled on different
--          connections, or the acquire was resent after NOSCRIPT) left it, and then nothing is set
-- KEYS[3]  fenced only: the lock's fencing counter, a hash {v = value, inc = marker id it was last validated under}
-- last     restart detection only: this node's incarnation marker, a hash {id, run, born, intact}
-- ARGV[1]  the caller's token
-- ARGV[2]  the time to live, in milliseconds
-- ARGV[3]  '1' fenced, '0' plain
-- ARGV[4]  restart detection only: the marker id the client knows for this node ('' if none)
-- ARGV[5]  restart detection only: the run_id of the server on this connection, as the client knows it ('' if not)
--
-- The marker is created once per dataset: when it is missing, this node is new or has lost its data (restart
-- without persistence, FLUSHALL, failover to an empty replica), so it is created here with the caller's token as
-- its id and 'intact' = '0' (fencing counters not known to be complete). The client counts a vote only while the
-- marker is the one it knows and old enough, and the marker's run_id is the server's own.
--
-- Returns  plain, marker as the client knows it: 1 granted, or {0, holderTtl} not granted
--          otherwise an array {granted, counter, counterValid, intact, [markerId, markerRun, markerAgeMs,] holderTtl};
--          the marker's three only when it is not the one the client named in ARGV[4] and ARGV[5].
--          holderTtl: when not granted, the PTTL of the holder's key (-1 no TTL, -2 gone: the tombstone refused),
--          so that a waiter learns when the lock frees at the latest without another round trip; 0 when granted.
--          counterValid is 1 when the counter may be trusted in a fencing read: the node's counters are intact,
--          or this counter was validated under the current marker (or restart detection is off).
local granted = 0
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  granted = 1
end
local holder = 0
if granted == 0 then
  holder = redis.call('PTTL', KEYS[1])
end
local fenced = ARGV[3] == '1'
local watched = ARGV[4] ~= nil
local id, run, born, intact = nil, nil, nil, '1'
if watched then
  local marker = KEYS[#KEYS]
  local m = redis.call('HMGET', marker, 'id', 'run', 'born', 'intact')
  id, run, born, intact = m[1], m[2], m[3], m[4]
  if not id then
    local t = redis.call('TIME')
    id, run, born, intact = ARGV[1], ARGV[5], tostring(t[1] * 1000 + math.floor(t[2] / 1000)), '0'
    redis.call('HSET', marker, 'id', id, 'run', run, 'born', born, 'intact', intact)
  end
end
local counter, valid = 0, 1
if fenced then
  local c = redis.call('HMGET', KEYS[3], 'v', 'inc')
  counter = tonumber(c[1] or '0')
  if watched and intact ~= '1' and c[2] ~= id then
    valid = 0
  end
end
if watched and (id ~= ARGV[4] or run ~= ARGV[5]) then
  local t = redis.call('TIME')
  local age = t[1] * 1000 + math.floor(t[2] / 1000) - tonumber(born)
  return {granted, counter, valid, intact == '1' and 1 or 0, id, run, age, holder}
end
if fenced then
  return {granted, counter, valid, intact == '1' and 1 or 0, holder}
end
if granted == 0 then
  return {0, holder}
end
return granted
