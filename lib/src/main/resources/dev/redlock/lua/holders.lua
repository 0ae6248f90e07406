-- Copyright 2026 The Redlock for Java authors
-- SPDX-License-Identifier: Apache-2.0
--
-- Replace one client's entry: who the client is, and which of its leases have been held for a while, so that an
-- inspection can name a lock's holder (host, process, client name, thread, since when). Written by the client about
-- once every ten seconds, and when its long-held leases change; never on a lock's own path.
--
-- KEYS[1]  the client's entry, a hash: host, pid, name, and 'l:<token prefix>' = 'thread<TAB>since epoch ms' per lease
-- ARGV[1]  how long the entry lives without being written again, in milliseconds; '0' deletes it (the client closes)
-- ARGV[2]  the fields: 'field<TAB>value' lines, separated by newlines (values hold no tab or newline)
--
-- Returns  1
redis.call('DEL', KEYS[1])
local ttl = tonumber(ARGV[1])
if ttl == nil or ttl <= 0 then
  return 1
end
local fields = {}
for field, value in string.gmatch(ARGV[2] or '', '([^\t\n]+)\t([^\n]*)') do
  fields[#fields + 1] = field
  fields[#fields + 1] = value
end
if #fields > 0 then
  redis.call('HSET', KEYS[1], unpack(fields))
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1
