-- Delete a lock key held by the holder an inspection just saw: the administrator's forced unlock. Token-checked by
-- prefix, so a holder that took the lock since the inspection is left alone. The holder finds out at its next
-- extension (the key is gone) and its lease is declared lost; the fencing counter is left alone, so the next
-- holder's token still increases. Waiters are told, as by a release.
--
-- KEYS[1]  the lock key
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
redis.pcall('PUBLISH', KEYS[1], string.sub(current, 1, 8))
return 1
