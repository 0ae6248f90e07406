-- Extend a lock key's expiry only if it still holds the caller's token.
-- It never creates the key: an extension must not resurrect a lock that is gone.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the caller's token
-- ARGV[2]  the new time to live, in milliseconds
--
-- Returns  1 extended
--          0 absent   (the key had already expired)
--         -1 another owner holds the key (left untouched)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
elseif current == false then
  return 0
end
return -1
