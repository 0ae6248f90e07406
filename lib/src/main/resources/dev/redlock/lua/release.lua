-- Release a lock key only if it still holds the caller's token.
-- A plain DEL could remove a key that expired and was then taken by another owner,
-- so the compare and the delete must be one atomic step on the node.
--
-- KEYS[1]  the lock key
-- KEYS[2]  optional: this token's release tombstone, sent when the client does not know whether its acquire ran
--          here yet (no reply came). If the key is not ours, the tombstone makes a late acquire a no-op.
-- ARGV[1]  the caller's token
-- ARGV[2]  with KEYS[2]: how long the tombstone lives, in milliseconds (the acquire's TTL)
--
-- Returns  1 released (the key held our token and is now gone)
--          0 absent   (the key had already expired or was never set here)
--         -1 another owner holds the key (left untouched)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
if KEYS[2] then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
end
if current == false then
  return 0
end
return -1
