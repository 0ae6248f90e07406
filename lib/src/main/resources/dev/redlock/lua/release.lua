-- Release a lock key only if it still holds the caller's token.
-- A plain DEL could remove a key that expired and was then taken by another owner,
-- so the compare and the delete must be one atomic step on the node.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the caller's token
--
-- Returns  1 released (the key held our token and is now gone)
--          0 absent   (the key had already expired or was never set here)
--         -1 another owner holds the key (left untouched)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
elseif current == false then
  return 0
end
return -1
