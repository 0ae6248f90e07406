-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Extend a lock key's expiry only if it still holds the caller's token, and only if no newer extension of the same
-- lease ran here first. It never creates the key: an extension must not resurrect a lock that is gone.
--
-- A lease numbers its extension rounds. Two of them can reach a node out of order (the first went out on a connection
-- that was then dropped as stalled, the second on a new one), and the older one must not undo the newer: its TTL may
-- be shorter than the lease's deadline now assumes. So each node remembers the newest round it applied.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lease's extension sequence on this node (same hash tag; lives as long as the lock key)
-- KEYS[3..] the lock kind's own keys, if any (see ARGV[4])
-- ARGV[1]  the caller's token
-- ARGV[2]  the new time to live, in milliseconds
-- ARGV[3]  this extension round's number within the lease (increasing)
-- ARGV[4]  optional: the lock kind, as in acquire.lua:
--            'm'  several resources: KEYS[1] and the kind keys must all hold the token, and all are extended
--            'r'  a reader: its entry in the readers set (KEYS[3]) must not have expired; it then expires at now + TTL
--                 (KEYS[2] is then the reader's own sequence: readers share the lock key)
--
-- Returns  1 extended (or a newer round already did: the key holds our token and lives on)
--          0 absent   (the key had already expired)
--         -1 another owner holds the key (left untouched)
local kind = ARGV[4] or ''

local function newerRan()
  local newest = redis.call('GET', KEYS[2])
  local at = newest and string.find(newest, ':', 1, true)
  return at and string.sub(newest, 1, at - 1) == ARGV[1] and tonumber(string.sub(newest, at + 1)) >= tonumber(ARGV[3])
end

local function remember()
  redis.call('SET', KEYS[2], ARGV[1] .. ':' .. ARGV[3], 'PX', ARGV[2])
end

if kind == 'r' then
  local readers = KEYS[3]
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local expiry = redis.call('ZSCORE', readers, ARGV[1])
  if not expiry or tonumber(expiry) <= now then
    return 0
  end
  if newerRan() then
    return 1
  end
  redis.call('ZADD', readers, 'XX', string.format('%.0f', now + tonumber(ARGV[2])), ARGV[1])
  local top = redis.call('ZRANGE', readers, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', readers, string.format('%.0f', tonumber(top[2]) - now))
  remember()
  return 1
end

local all = {KEYS[1]}
if kind == 'm' then
  for i = 3, #KEYS do
    all[#all + 1] = KEYS[i]
  end
end
for i = 1, #all do
  local current = redis.call('GET', all[i])
  if current ~= ARGV[1] then
    return current == false and 0 or -1
  end
end
if newerRan() then
  return 1
end
for i = 1, #all do
  redis.call('PEXPIRE', all[i], ARGV[2])
end
remember()
return 1
