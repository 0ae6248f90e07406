-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Delete a lock key held by the holder an inspection just saw: the administrator's forced unlock. Token-checked by
-- prefix, so a holder that took the lock since the inspection is left alone. The holder finds out at its next
-- extension (the key is gone) and its lease is declared lost; the fencing counter is left alone, so the next
-- holder's token still increases. Waiters are told, as by a release.
--
-- KEYS[1]  the lock key
-- KEYS[2..4] the queue of a fair lock or of a plain lock's hand-over ({queue, queue expiry, holder's place}, see
--          acquire.lua): the holder's place leaves the queue with its key, or it would keep newcomers out until it
--          lapsed, and the message names the queue's next waiter, as a release's does
-- ARGV[1]  the first characters of the token the inspection saw on this node (never empty)
--
-- Returns  1 deleted, 0 absent, -1 another holder has it now (left untouched)
local current = redis.call('GET', KEYS[1])
if not current then
  return 0
end
if string.sub(current, 1, #ARGV[1]) ~= ARGV[1] then
  return -1
end
redis.call('DEL', KEYS[1])
local message = string.sub(current, 1, 8)
local holder = KEYS[4] and redis.call('GET', KEYS[4])
if holder then
  redis.call('ZREM', KEYS[2], holder)
  redis.call('ZREM', KEYS[3], holder)
  redis.call('DEL', KEYS[4])
end
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
  for i = 1, #gone do
    redis.call('ZREM', KEYS[2], gone[i])
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if head then
    message = message .. ' ' .. string.sub(head, 1, 16)
    if #head == 16 then
      redis.pcall('PUBLISH', KEYS[1] .. head, message) -- a client's place in a plain lock's hand-over queue
    end
  end
end
redis.pcall('PUBLISH', KEYS[1], message)
return 1
