-- Release a lock key only if it still holds the caller's token.
-- A plain DEL could remove a key that expired and was then taken by another owner,
-- so the compare and the delete must be one atomic step on the node.
--
-- KEYS[1]  the lock key
-- KEYS[2..] the lock kind's own keys, if any (see ARGV[3])
-- KEYS[last] optional, after them: this token's release tombstone, sent when the client does not know whether its
--          acquire ran here yet (no reply came). If the key is not ours, the tombstone makes a late acquire a no-op.
-- ARGV[1]  the caller's token
-- ARGV[2]  with the tombstone: how long it lives, in milliseconds (the acquire's TTL); else '0'
-- ARGV[3]  optional: the lock kind (as in acquire.lua), '<kind> <number of kind keys> <words...>':
--            'm n'        several resources: KEYS[1] and the n kind keys are each deleted where they hold the token
--            'r 2'        a reader: the token leaves the readers set (kind keys {readers, waiting writers})
--            'w 2 <id>'   a writer that leaves: as plain, and waiter <id> leaves the waiting writers
--            'f 2 <id>'   a fair lock's waiter that leaves: as plain, and waiter <id> leaves the queue (kind keys
--                         {queue, queue expiry})
--
-- A release that deleted the key publishes on a channel named after the key, with the token's first 8 characters
-- (what logs show; too little to release anything), so that waiters subscribed to it try again at once instead of
-- at their next poll, and a client hearing one release from several nodes wakes one waiter for it. PUBLISH goes
-- through pcall: a node whose ACL refuses it still releases (its waiters poll), and the reply is the release's own.
-- A reader publishes on the writer's key, and only as the last reader leaves: that is what a writer waits for. A
-- waiter leaving the queue of a free lock publishes its id's first 8 characters: it may have held others back.
--
-- Returns  1 released (the key held our token and is now gone)
--          0 absent   (the key had already expired or was never set here)
--         -1 another owner holds the key (left untouched)
local spec = {}
for word in string.gmatch(ARGV[3] or '', '%S+') do
  spec[#spec + 1] = word
end
local kind = spec[1] or ''
local extra = tonumber(spec[2] or '0')
local tombstone = KEYS[2 + extra]

local function bury()
  if tombstone then
    redis.call('SET', tombstone, '1', 'PX', ARGV[2])
  end
end

if kind == 'r' then
  local readers = KEYS[2]
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local expiry = redis.call('ZSCORE', readers, ARGV[1])
  redis.call('ZREM', readers, ARGV[1])
  if expiry and tonumber(expiry) > now then
    redis.call('ZREMRANGEBYSCORE', readers, '-inf', now)
    if redis.call('ZCARD', readers) == 0 then
      redis.pcall('PUBLISH', KEYS[1], string.sub(ARGV[1], 1, 8))
    end
    return 1
  end
  bury()
  return 0
end

if kind == 'm' then
  local released, other = 0, 0
  for i = 1, 1 + extra do
    local current = redis.call('GET', KEYS[i])
    if current == ARGV[1] then
      redis.call('DEL', KEYS[i])
      redis.pcall('PUBLISH', KEYS[i], string.sub(ARGV[1], 1, 8))
      released = released + 1
    elseif current then
      other = other + 1
    end
  end
  if released > 0 then
    return 1
  end
  bury()
  return other > 0 and -1 or 0
end

local left = 0
if kind == 'w' then
  left = redis.call('ZREM', KEYS[3], spec[3])
elseif kind == 'f' then
  left = redis.call('ZREM', KEYS[2], spec[3])
  redis.call('ZREM', KEYS[3], spec[3])
end

local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.pcall('PUBLISH', KEYS[1], string.sub(ARGV[1], 1, 8))
  return 1
end
if left == 1 and current == false then
  -- A waiter left a free lock's queue (it gave up): those it held back (readers behind a preferred writer, the next
  -- place of a fair queue) may get in now.
  redis.pcall('PUBLISH', KEYS[1], string.sub(spec[3], 1, 8))
end
bury()
if current == false then
  return 0
end
return -1
