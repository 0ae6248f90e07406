-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Acquire a lock key on one node: SET NX PX, plus what the client needs to judge the vote, in one atomic step.
--
-- KEYS[1]  the lock key
-- KEYS[2]  this token's release tombstone: a release that ran before this acquire (the two travelled on different
--          connections, or the acquire was resent after NOSCRIPT) left it, and then nothing is set
-- KEYS[3]  fenced only: the lock's fencing counter, a hash {v = value, inc = marker id it was last validated under}
-- last     restart detection only: this node's incarnation marker, a hash {id, run, born, intact}
-- ARGV[1]  the caller's token
-- ARGV[2]  the time to live, in milliseconds
-- KEYS[..] the lock kind's own keys, after the counter (or the tombstone) and before the marker; see below
-- ARGV[3]  '1' fenced, '0' plain; for a kind other than the plain lock, followed by a space and the kind's words
-- ARGV[4]  restart detection only: the marker id the client knows for this node ('' if none)
-- ARGV[5]  restart detection only: the run_id of the server on this connection, as the client knows it ('' if not)
--
-- The marker is created once per dataset: when it is missing, this node is new or has lost its data (restart
-- without persistence, FLUSHALL, failover to an empty replica), so it is created here with the caller's token as
-- its id and 'intact' = '0' (fencing counters not known to be complete). The client counts a vote only while the
-- marker is the one it knows and old enough, and the marker's run_id is the server's own.
--
-- Returns  plain, marker as the client knows it: 1 granted, or {0, holderTtl} not granted
--          otherwise an array {granted, counter, counterValid, intact, [markerId, markerRun, markerAgeMs,] holderTtl};
--          the marker's three only when it is not the one the client named in ARGV[4] and ARGV[5].
--          holderTtl: when not granted, the PTTL of the holder's key (-1 no TTL, -2 gone: the tombstone refused),
--          so that a waiter learns when the lock frees at the latest without another round trip; 0 when granted.
--          counterValid is 1 when the counter may be trusted in a fencing read: the node's counters are intact,
--          or this counter was validated under the current marker (or restart detection is off).
--
-- Lock kinds (ARGV[3] = '<fenced> <kind> <words...>'; their keys are KEYS[3 or 4] onwards). On every kind the tombstone
-- refuses, and a refusal reports when the lock frees at the latest (holderTtl), or -1 when that is unknown.
--   plain        KEYS[1] is set NX PX.
--   'm'          several resources at once: KEYS[1] and the kind's keys are all set, or none (all must be absent).
--   'r'          a reader: KEYS[1] is the writer's key; kind keys {readers, waiting writers}, both sorted sets scored by
--                the node time (ms) an entry expires. Word: the token of a write lease the same thread holds ('-' if
--                none), which does not refuse its own reader. Refused while another writer holds KEYS[1] or a writer
--                waits (an unexpired entry in waiting writers); else our token joins the readers until now + TTL.
--   'w'          a writer: same keys; words: the waiter's id, how long its entry in waiting writers lasts (ms, 0 for
--                no preference). Granted when no unexpired reader is left and KEYS[1] is set NX PX; while refused,
--                the waiter's entry keeps new readers out. Granted, the entry stays as long as the key (its release
--                removes it), so a round that fails here keeps the place, and a writer that dies frees it with the key.
--                Two more words, with two more keys {writers' line (scored by the order), its expiry (by node time)}:
--                the writer's order and how long its place in the line lasts (ms). Each round takes the writer's
--                place in the line (NX: the first order stays) and makes it last the window from now; the lease's
--                release (or giving up) takes it out. A release names the line's head, so that only that writer's
--                client wakes it, instead of a writer in every client racing for the key and splitting the votes.
--                The line refuses only newcomers: a writer with no place yet is refused (and takes one) while others
--                stand in it, so the writer that just released does not take the lock back ahead of the one its
--                release named; a writer with a place may take a free key, head or not (the line orders wake-ups,
--                not grants: a split vote or nodes whose lines differ never stall it). It keeps no reader out (that
--                is the waiting writers' entry). Refused on a free key, the reply's holderTtl is how long the head's
--                place lasts without a new attempt.
--   'f'          a fair lock: kind keys {queue (scored by the order), queue expiry (scored by node time), holder's
--                place (the id of the waiter granted here, as long as its place lasts)}; words: the order, the
--                waiter's id, how long its place lasts (ms). The waiter takes its place (NX: the first order stays),
--                refreshes its expiry, and is granted only at the head of the queue with KEYS[1] free. Places whose
--                expiry passed are dropped first: a waiter that died loses its place. Granted, the place stays as long
--                as the key, so a round that fails keeps it, and a holder that dies leaves with its key; the lease's
--                release (or giving up, or a forced unlock, which finds it through the holder's place) drops it.
--                More words, in pairs <order> <id>: places the client carries for its newer waiters, which began
--                behind one of its own that stands in the queue and run no round of their own to take a place; each
--                is taken as its own round would take it (NX), before the head is looked at.
--   'q'          a plain lock's waiter in the hand-over queue: the same keys and words as 'f', but the place is the
--                client's (its id for the waiter's), at the order of its oldest waiter (the release of a lease moves
--                it to the next one's, see release.lua), and it is taken only when refused (a free lock with nobody
--                queued is granted at once, and costs nothing more); a waiter id '-' (a single attempt) ignores the
--                queue and takes no place (the client sends such an attempt as a plain acquire, kind '', which does the
--                same with fewer keys). While places are queued, the lock is granted only to the head, so the
--                release, which names the head, hands over to one client that every node agrees on (the order is the
--                clients'), instead of waking a waiter in every client.
--                Refused on a free lock, the reply's holderTtl is how long the head's place lasts without a new
--                attempt (as for 'f'): the waiters behind a head that died retry when its place lapses.
local spec = {}
for word in string.gmatch(ARGV[3], '%S+') do
  spec[#spec + 1] = word
end
local fenced = spec[1] == '1'
local kind = spec[2] or ''
local watched = ARGV[4] ~= nil
local first = fenced and 4 or 3
local last = watched and #KEYS - 1 or #KEYS
local free = redis.call('EXISTS', KEYS[2]) == 0
-- This token was released here already (the release came first on another connection): a late acquire sets nothing,
-- not even a waiter's entry or place, which would otherwise hold others up for a whole queue window.
local released = not free

local function nowMs()
  local t = redis.call('TIME')
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

-- The latest expiry (node ms) in a sorted set scored by expiry, or nil when it is empty.
local function latest(zset)
  local top = redis.call('ZRANGE', zset, -1, -1, 'WITHSCORES')
  return top[2] and tonumber(top[2]) or nil
end

-- A queue of waiters ('f', 'q'): drops the places whose expiry (node ms) passed, so a waiter that died loses its place.
local function dropExpired(queue, expiry, now)
  local gone = redis.call('ZRANGEBYSCORE', expiry, '-inf', now)
  for i = 1, #gone do
    redis.call('ZREM', queue, gone[i])
  end
  redis.call('ZREMRANGEBYSCORE', expiry, '-inf', now)
end

-- Takes the waiter's place at its order and makes it last window ms from now; the two sets live as long as their
-- latest place. A fair lock's waiter keeps its first order (NX; it never sends another). A client's place in a plain
-- lock's queue moves to an older order it names (LT): the client's acquisitions reach the nodes in different orders,
-- and a place taken first by a newer one must not stay behind there, or the nodes would disagree about the head for
-- as long as the client waits (a MultiLock, which needs every node, would then be granted to nobody).
local function takePlace(queue, expiry, order, waiter, window, now, how)
  redis.call('ZADD', queue, how, order, waiter)
  redis.call('ZADD', expiry, string.format('%.0f', now + window), waiter)
  local keep = string.format('%.0f', latest(expiry) - now)
  redis.call('PEXPIRE', queue, keep)
  redis.call('PEXPIRE', expiry, keep)
end

-- A waiter granted at the head keeps its place only as long as its key (if it dies, the next waiter moves up when
-- the key expires), and is remembered as the holder's place, which a forced unlock removes.
local function holdPlace(expiry, holding, waiter, window, now)
  local lasts = math.min(window, tonumber(ARGV[2]))
  redis.call('ZADD', expiry, string.format('%.0f', now + lasts), waiter)
  redis.call('SET', holding, waiter, 'PX', lasts)
end

-- How long the head's place lasts without a new attempt (ms): a waiter held back by it retries when it lapses.
local function headLasts(expiry, head, now)
  local until_ = redis.call('ZSCORE', expiry, head)
  return until_ and math.max(1, tonumber(until_) - now) or -1
end

local granted, holder = 0, 0
if kind == '' then
  if free and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    granted = 1
  else
    holder = redis.call('PTTL', KEYS[1])
  end
elseif kind == 'm' then
  local all = {KEYS[1]}
  for i = first, last do
    all[#all + 1] = KEYS[i]
  end
  for i = 1, #all do
    local pttl = redis.call('PTTL', all[i])
    if pttl ~= -2 then
      free = false
      holder = (pttl == -1 or holder == -1) and -1 or math.max(holder, pttl)
    end
  end
  if free then
    for i = 1, #all do
      redis.call('SET', all[i], ARGV[1], 'PX', ARGV[2])
    end
    granted = 1
  elseif holder == 0 then
    holder = -2
  end
elseif kind == 'r' then
  local readers, writers = KEYS[first], KEYS[first + 1]
  local now = nowMs()
  local writer = redis.call('GET', KEYS[1])
  redis.call('ZREMRANGEBYSCORE', writers, '-inf', now)
  if writer and writer ~= spec[3] then
    free = false
    holder = redis.call('PTTL', KEYS[1])
  elseif spec[3] == '-' and redis.call('ZCARD', writers) > 0 then
    free = false
    holder = -1
  end
  if free then
    redis.call('ZREMRANGEBYSCORE', readers, '-inf', now)
    redis.call('ZADD', readers, string.format('%.0f', now + tonumber(ARGV[2])), ARGV[1])
    redis.call('PEXPIRE', readers, string.format('%.0f', latest(readers) - now))
    granted = 1
  elseif holder == 0 then
    holder = -2
  end
elseif kind == 'w' then
  local readers, writers = KEYS[first], KEYS[first + 1]
  local now = nowMs()
  local window = tonumber(spec[4])
  local lineWindow = tonumber(spec[6] or '0')
  local line, lineExpiry = KEYS[first + 2], KEYS[first + 3]
  -- A newcomer to a line others stand in (this writer has no place in it yet) queues first, even for a free key: the
  -- writer that just released must not take the lock back ahead of the writer its release named.
  local head = nil
  if lineWindow > 0 then
    dropExpired(line, lineExpiry, now)
    if not redis.call('ZSCORE', line, spec[3]) then
      head = redis.call('ZRANGE', line, 0, 0)[1]
    end
  end
  redis.call('ZREMRANGEBYSCORE', readers, '-inf', now)
  local lastReader = latest(readers)
  if lastReader or head then
    free = false
  end
  if free and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    granted = 1
  else
    holder = redis.call('PTTL', KEYS[1])
    if lastReader then
      holder = math.max(holder, lastReader - now)
    elseif holder == -2 and head and not released then
      holder = headLasts(lineExpiry, head, now) -- free, but others stand in the line
    end
  end
  if window > 0 and not released then
    -- A writer granted keeps its entry only as long as its key: if it dies, readers wait no longer than for the key.
    local lasts = granted == 1 and math.min(window, tonumber(ARGV[2])) or window
    redis.call('ZADD', writers, string.format('%.0f', now + lasts), spec[3])
    redis.call('PEXPIRE', writers, string.format('%.0f', latest(writers) - now))
  end
  if lineWindow > 0 and not released then
    -- Granted too: a round that fails here (a split vote) keeps the place, and the lease's release takes it out.
    takePlace(line, lineExpiry, spec[5], spec[3], lineWindow, now, 'NX')
  end
elseif kind == 'f' then
  local queue, expiry, holding = KEYS[first], KEYS[first + 1], KEYS[first + 2]
  local now = nowMs()
  local window = tonumber(spec[5])
  dropExpired(queue, expiry, now)
  if not released then
    takePlace(queue, expiry, spec[3], spec[4], window, now, 'NX')
  end
  for i = 6, #spec - 1, 2 do
    takePlace(queue, expiry, spec[i], spec[i + 1], window, now, 'NX')
  end
  local head = redis.call('ZRANGE', queue, 0, 0)[1]
  if free and head == spec[4] and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    granted = 1
    holdPlace(expiry, holding, spec[4], window, now)
  else
    holder = redis.call('PTTL', KEYS[1])
    if holder == -2 and free then
      holder = head and headLasts(expiry, head, now) or -1 -- free, but another waiter is first
    end
  end
elseif kind == 'q' then
  local queue, expiry, holding = KEYS[first], KEYS[first + 1], KEYS[first + 2]
  local me, window = spec[4], tonumber(spec[5])
  local head, now = nil, nil
  -- Nobody queued (the expiry set goes with its last place): a free lock is granted as a plain one, at no extra cost.
  if me ~= '-' and redis.call('EXISTS', expiry) == 1 then
    now = nowMs()
    dropExpired(queue, expiry, now)
    head = redis.call('ZRANGE', queue, 0, 0)[1]
  end
  if free and (head == nil or head == me) and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    granted = 1
    if head == me then
      holdPlace(expiry, holding, me, window, now)
    end
  else
    holder = redis.call('PTTL', KEYS[1])
    if me ~= '-' and not released then
      now = now or nowMs()
      takePlace(queue, expiry, spec[3], me, window, now, 'LT')
      head = redis.call('ZRANGE', queue, 0, 0)[1]
    end
    if holder == -2 and free then
      holder = (head and head ~= me) and headLasts(expiry, head, now) or -1 -- free, but another waiter is first
    end
  end
else
  return redis.error_reply('ERR unknown lock kind ' .. kind)
end
local id, run, born, intact = nil, nil, nil, '1'
if watched then
  local marker = KEYS[#KEYS]
  local m = redis.call('HMGET', marker, 'id', 'run', 'born', 'intact')
  id, run, born, intact = m[1], m[2], m[3], m[4]
  if not id then
    local t = redis.call('TIME')
    id, run, born, intact = ARGV[1], ARGV[5], tostring(t[1] * 1000 + math.floor(t[2] / 1000)), '0'
    redis.call('HSET', marker, 'id', id, 'run', run, 'born', born, 'intact', intact)
  end
end
local counter, valid = 0, 1
if fenced then
  local c = redis.call('HMGET', KEYS[3], 'v', 'inc')
  counter = tonumber(c[1] or '0')
  if watched and intact ~= '1' and c[2] ~= id then
    valid = 0
  end
end
if watched and (id ~= ARGV[4] or run ~= ARGV[5]) then
  local t = redis.call('TIME')
  local age = t[1] * 1000 + math.floor(t[2] / 1000) - tonumber(born)
  return {granted, counter, valid, intact == '1' and 1 or 0, id, run, age, holder}
end
if fenced then
  return {granted, counter, valid, intact == '1' and 1 or 0, holder}
end
if granted == 0 then
  return {0, holder}
end
return granted
