-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
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
--            'r 1'        a reader: the token leaves the readers set (kind keys {readers}); 'r 3' with the writers'
--                         line {line, line expiry} (see acquire.lua, kind 'w'), whose head the last reader names
--            'w 2 <id>'   a writer that leaves: as plain, and waiter <id> leaves the waiting writers (kind keys
--                         {readers, waiting writers}); 'w 4 <id>' with the writers' line, which it leaves too and
--                         whose head the release names
--            's 0'        a writer's failed round, given back while it waits on: as plain, but silent (see below)
--            'f 3 <id>'   a fair lock's waiter that leaves: as plain, and waiter <id> leaves the queue (kind keys
--                         {queue, queue expiry, holder's place}); '-' for a release that keeps the place.
--                         'f 3 <id> <window> <order> <id2> ...': first, the places its client carries for newer
--                         waiters that took none yet (pairs <order> <id>, each lasting <window> ms), as in
--                         acquire.lua, so that no later waiter of another client gets ahead of them as <id> goes
--            'q 3 <id> <next> <window>'
--                         a plain lock with a hand-over queue (same keys as 'f'): <id> is the client's place, which
--                         moves to order <next> (its next waiter's) for <window> ms, or leaves if <next> is '-'; a
--                         <next> of '~<order>' moves it there only while another place is queued (the client has no
--                         waiter left, but may come back for the lock: it keeps its turn at the back), else it
--                         leaves; a <next> of '+<order>' (a failed round's release: the client waits on) takes the
--                         place at that order if it has none here or a later one; a <next> of '=<order>' takes it out
--                         only if it is still at that order (where a release left it); an <id> of '-' keeps the place
--                         as it is
--
-- A release that deleted the key publishes on a channel named after the key (except 's': a writer that takes back
-- what a failed round won on some nodes; announced, it would wake a waiter in every client, their rounds would split
-- the votes again and their releases announce again, a storm of rounds in which nobody gets the lock), with the token's first 8 characters
-- (what logs show; too little to release anything), so that waiters subscribed to it try again at once instead of
-- at their next poll, and a client hearing one release from several nodes wakes one waiter for it. With a queue
-- ('f', 'q'), the message also names the head of the queue (a space, then its id's first 16 characters): only that
-- waiter's client wakes it, and the other clients' waiters sleep on, since the nodes would refuse them (and in a
-- hand-over queue, ' +' after the head if other clients' places wait behind it). A writer's release (and the last
-- reader's) names the head of the writers' line the same way: that writer's client wakes it, and other clients wake
-- a waiting reader at most (the nodes grant any writer, but nobody else is woken to race it). In a plain
-- lock's hand-over queue the head is a client, and the message goes to that client alone, on the key's name followed
-- by the client's id (the other clients are not even woken to read it), and to the releasing client if it has waiters
-- left, which learns that another client is next (its own release then waits for the nodes' word instead of waking
-- its waiter at once). PUBLISH goes
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

-- The live head of a queue {places by order, their expiry (node ms)}, after dropping the places whose expiry passed;
-- nil if nobody is queued (the expiry set goes with its last place).
local function liveHead(places, expiry)
  if redis.call('EXISTS', expiry) == 0 then
    return nil
  end
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', now)
  for i = 1, #gone do
    redis.call('ZREM', places, gone[i])
  end
  redis.call('ZREMRANGEBYSCORE', expiry, '-inf', now)
  return redis.call('ZRANGE', places, 0, 0)[1]
end

-- A message that names the next writer in the writers' line, if the kind has the line's keys from KEYS[at].
local function namingNextWriter(message, at)
  local head = KEYS[at + 1] and liveHead(KEYS[at], KEYS[at + 1])
  return head and message .. ' ' .. string.sub(head, 1, 16) or message
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
      redis.pcall('PUBLISH', KEYS[1], extra >= 3 and namingNextWriter(string.sub(ARGV[1], 1, 8), 3)
        or string.sub(ARGV[1], 1, 8))
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

local queued = kind == 'f' or kind == 'q'
-- A writer's line, if it has one: a queue as a fair lock's, which only names the next writer.
local line = kind == 'w' and extra >= 4
-- The queue's keys {places by order, their expiry}.
local places, placesExpiry = KEYS[line and 4 or 2], KEYS[line and 5 or 3]
-- Whether anyone queues here (the expiry set goes with its last place): without a queue, a release of a queued kind
-- costs one command more than a plain one.
local queue = (queued or line) and redis.call('EXISTS', placesExpiry) == 1
-- The releasing client moves its place to its next waiter's order: it has waiters, and wants to know who is next.
local waits = kind == 'q' and spec[3] ~= '-' and tonumber(spec[4] or '') ~= nil
local left = 0
if kind == 'f' and spec[3] ~= '-' and spec[5] then
  -- The places a fair waiter's client carries for its newer waiters (see above), taken before its own goes.
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local lasts = string.format('%.0f', now + tonumber(spec[4]))
  for i = 5, #spec - 1, 2 do
    redis.call('ZADD', places, 'NX', spec[i], spec[i + 1])
    redis.call('ZADD', placesExpiry, lasts, spec[i + 1])
  end
  local top = redis.call('ZRANGE', placesExpiry, -1, -1, 'WITHSCORES')
  local keep = string.format('%.0f', tonumber(top[2]) - now)
  redis.call('PEXPIRE', places, keep)
  redis.call('PEXPIRE', placesExpiry, keep)
  queue = true
end
if kind == 'w' then
  left = redis.call('ZREM', KEYS[3], spec[3])
  if queue and redis.call('ZREM', places, spec[3]) == 1 then
    redis.call('ZREM', placesExpiry, spec[3])
    left = 1
  end
elseif queued and spec[3] ~= '-' and (queue or (kind == 'q' and not string.find(spec[4] or '-', '^[-=~]'))) then
  -- (Without a queue, only a move or a '+' has anything to do: it takes a place.)
  queue = true
  if redis.call('GET', KEYS[4]) == spec[3] then
    redis.call('DEL', KEYS[4])
  end
  local next = spec[4] or '-'
  local keep = kind == 'q' and string.sub(next, 1, 1) == '+'
  if keep then
    next = string.sub(next, 2)
  end
  if kind == 'q' and string.sub(next, 1, 1) == '~' then
    next = string.sub(next, 2)
    local t = redis.call('TIME')
    local now = t[1] * 1000 + math.floor(t[2] / 1000)
    local mine = redis.call('ZSCORE', KEYS[3], spec[3])
    local live = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf') -- a place per client: a short list
    local others = #live - ((mine and tonumber(mine) > now) and 1 or 0)
    if others <= 0 then
      next = '-' -- nobody else queues: a place at the back would only hold the next newcomer up
    end
  end
  if kind == 'q' and string.sub(next, 1, 1) == '=' then
    local at = redis.call('ZSCORE', KEYS[2], spec[3])
    if at and tonumber(at) == tonumber(string.sub(next, 2)) then
      left = redis.call('ZREM', KEYS[2], spec[3])
      redis.call('ZREM', KEYS[3], spec[3])
    end
  elseif kind == 'q' and next ~= '-' then
    -- The client has other waiters (or may come back): its place stays, at the next one's order.
    local t = redis.call('TIME')
    local now = t[1] * 1000 + math.floor(t[2] / 1000)
    if keep then
      redis.call('ZADD', KEYS[2], 'LT', next, spec[3]) -- an older order than the one it has here moves it (acquire.lua)
    else
      redis.call('ZADD', KEYS[2], next, spec[3])
    end
    redis.call('ZADD', KEYS[3], string.format('%.0f', now + tonumber(spec[5])), spec[3])
    local top = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    local lasts = string.format('%.0f', tonumber(top[2]) - now)
    redis.call('PEXPIRE', KEYS[2], lasts)
    redis.call('PEXPIRE', KEYS[3], lasts)
    left = 1 -- the queue's order changed: on a free lock, another client may be first now
  else
    left = redis.call('ZREM', KEYS[2], spec[3])
    redis.call('ZREM', KEYS[3], spec[3])
  end
end

-- The message for the waiters: what was released, and with a queue, who is next (its live head), if anyone.
local function news(released)
  local head = queue and liveHead(places, placesExpiry)
  if not head then
    return released, nil
  end
  -- In a hand-over queue, ' +' when other clients' places wait behind the head: a client named with none behind it
  -- may wake its own next waiter as it releases (nobody else is there to be first); with others behind, it waits for
  -- the nodes' word (release after release, the head is then usually another client, which would refuse its waiter).
  local behind = kind == 'q' and redis.call('ZCARD', KEYS[2]) > 1 and ' +' or ''
  return released .. ' ' .. string.sub(head, 1, 16) .. behind, head
end

-- Tells the waiters (see above).
local function tell(released)
  local message, head = news(released)
  if kind ~= 'q' or not head then
    redis.pcall('PUBLISH', KEYS[1], message)
    return
  end
  redis.pcall('PUBLISH', KEYS[1] .. head, message)
  if waits and spec[3] ~= head then
    redis.pcall('PUBLISH', KEYS[1] .. spec[3], message)
  end
end

local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if kind ~= 's' then
    tell(string.sub(ARGV[1], 1, 8))
  end
  return 1
end
if left == 1 and current == false then
  -- A waiter left a free lock's queue (it gave up): those it held back (readers behind a preferred writer, the next
  -- place of a fair queue) may get in now.
  tell(string.sub(kind == 'q' and ARGV[1] or spec[3], 1, 8)) -- a client leaves with a token of its own
end
bury()
if current == false then
  return 0
end
return -1
