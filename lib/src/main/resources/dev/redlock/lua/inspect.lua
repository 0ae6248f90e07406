-- Read who holds a lock key on one node, for inspection. Changes nothing.
--
-- KEYS[1]  the lock key
--
-- Returns  {holder, pttl}: holder is the first 8 characters of the token the key holds (what logs show; too little
--          to release anything), or false when the key is absent; pttl its remaining time to live in milliseconds
--          (-1 no TTL, -2 absent).
local current = redis.call('GET', KEYS[1])
if not current then
  return {false, -2}
end
return {string.sub(current, 1, 8), redis.call('PTTL', KEYS[1])}
