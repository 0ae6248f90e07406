-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Read who holds a lock key on one node, for inspection. Changes nothing.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the key prefix of clients' entries (the key prefix followed by 'client:'), or '' to read none. A token is
--          16 random hex digits followed by its client's id; that client's entry, a hash written by holders.lua, says
--          who the client is. The entry is read by name here, outside KEYS: inspection is an operator's read on one
--          node, never part of a lock's own steps.
--
-- Returns  {holder, pttl[, host, pid, name, lease]}: holder is the first 8 characters of the token the key holds (what logs show; too
--          little to release anything), or false when the key is absent; pttl its remaining time to live in
--          milliseconds (-1 no TTL, -2 absent); then, when the holder's client has an entry here, its host, pid,
--          name and lease fields (each nil when missing; lease is 'thread<TAB>since epoch ms', written once a lease
--          has been held for about a second). Flat, so that the reply stays one array deep.
local current = redis.call('GET', KEYS[1])
if not current then
  return {false, -2}
end
local holder = string.sub(current, 1, 8)
local pttl = redis.call('PTTL', KEYS[1])
if ARGV[1] ~= nil and ARGV[1] ~= '' and #current == 32 then
  local who = redis.pcall('HMGET', ARGV[1] .. string.sub(current, 17), 'host', 'pid', 'name', 'l:' .. holder)
  if type(who) == 'table' and who.err == nil and (who[1] or who[4]) then
    return {holder, pttl, who[1], who[2], who[3], who[4]}
  end
end
return {holder, pttl}
