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
-- A release that deleted the key publishes on a channel named after the key, with the token's first 8 characters
-- (what logs show; too little to release anything), so that waiters subscribed to it try again at once instead of
-- at their next poll, and a client hearing one release from several nodes wakes one waiter for it. PUBLISH goes
-- through pcall: a node whose ACL refuses it still releases (its waiters poll), and the reply is the release's own.
--
-- Returns  1 released (the key held our token and is now gone)
--          0 absent   (the key had already expired or was never set here)
--         -1 another owner holds the key (left untouched)
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.pcall('PUBLISH', KEYS[1], string.sub(ARGV[1], 1, 8))
  return 1
end
if KEYS[2] then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
end
if current == false then
  return 0
end
return -1
