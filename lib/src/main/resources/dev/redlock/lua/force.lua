-- Delete a lock key whoever holds it: the administrator's forced unlock. The holder finds out at its next
-- extension (the key is gone) and its lease is declared lost; the fencing counter is left alone, so the next
-- holder's token still increases. Waiters are told, as by a release.
--
-- KEYS[1]  the lock key
--
-- Returns  1 deleted, 0 absent
local current = redis.call('GET', KEYS[1])
if not current then
  return 0
end
redis.call('DEL', KEYS[1])
redis.pcall('PUBLISH', KEYS[1], string.sub(current, 1, 8))
return 1
