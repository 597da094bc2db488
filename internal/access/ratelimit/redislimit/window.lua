-- Sliding-window check and count of one key's minute and day windows, in one
-- atomic step. Mirrors internal/access/window.go: a window whose limit is at
-- most exactMax keeps exact timestamps in a sorted set (at most limit of
-- them); a larger one keeps per-bucket counts in a hash, with fields "n"
-- (the total) and "lo" (the oldest bucket that may hold counts), and counts
-- the bucket holding now-span in full, so it never over-admits.
--
-- KEYS: minute zset, minute hash, day zset, day hash (one hash slot: {id}).
-- ARGV: minute limit, day limit, exactMax, member token, now in
-- microseconds or "" for Redis's own clock (only tests pass a time), and
-- "1" to peek: decide as for one more request, but count nothing; and the
-- number of requests the call counts as (each window counts at most its
-- limit of them).
-- Returns: allowed (0/1), now, then per window: used, oldest expiry, free at
-- (microseconds; 0 when not applicable).

local function str(x) return string.format('%.0f', x) end

-- idiv is floor(a/b) for a, b > 0, exact for integers below 2^53.
local function idiv(a, b) return (a - math.fmod(a, b)) / b end

local now
if ARGV[5] ~= '' then
  now = tonumber(ARGV[5])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- toExact turns a bucket hash into timestamps at the latest instant of each
-- bucket, newest limit of them, which keeps every request counted as long.
local function toExact(z, h, limit, width)
  local all = redis.call('HGETALL', h)
  local b = {}
  for i = 1, #all, 2 do
    if all[i] ~= 'n' and all[i] ~= 'lo' then
      b[#b + 1] = {tonumber(all[i]), tonumber(all[i + 1])}
    end
  end
  table.sort(b, function(x, y) return x[1] > y[1] end)
  local left = limit
  for _, e in ipairs(b) do
    for j = 1, e[2] do
      if left <= 0 then break end
      redis.call('ZADD', z, str((e[1] + 1) * width - 1), 'c' .. str(e[1]) .. ':' .. j)
      left = left - 1
    end
  end
  redis.call('DEL', h)
end

local function toBuckets(z, h, width)
  local all = redis.call('ZRANGE', z, 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    local idx = idiv(tonumber(all[i + 1]), width)
    if i == 1 then redis.call('HSET', h, 'lo', str(idx)) end
    redis.call('HINCRBY', h, str(idx), 1)
    redis.call('HINCRBY', h, 'n', 1)
  end
  redis.call('DEL', z)
end

local function exact(w)
  if redis.call('EXISTS', w.h) == 1 then toExact(w.z, w.h, w.limit, w.width) end
  redis.call('ZREMRANGEBYSCORE', w.z, '-inf', str(now - w.span))
  local used = redis.call('ZCARD', w.z)
  if used > w.limit then
    -- Only the newest limit can matter once the limit has shrunk.
    redis.call('ZREMRANGEBYRANK', w.z, 0, used - w.limit - 1)
    used = w.limit
  end
  w.used = used
  if used > 0 then
    w.oldest = tonumber(redis.call('ZRANGE', w.z, 0, 0, 'WITHSCORES')[2]) + w.span
  end
  if used + w.need > w.limit then
    -- When the oldest used-limit+need have left, need more fit.
    local r = math.max(used - w.limit + w.need - 1, 0)
    w.free = tonumber(redis.call('ZRANGE', w.z, r, r, 'WITHSCORES')[2]) + w.span
  end
end

local function bucketed(w)
  if redis.call('EXISTS', w.z) == 1 then toBuckets(w.z, w.h, w.width) end
  local nb = w.span / w.width + 1
  local lo0 = idiv(now - w.span, w.width)
  local cur = idiv(now, w.width)
  local lo = tonumber(redis.call('HGET', w.h, 'lo') or lo0)
  local n = tonumber(redis.call('HGET', w.h, 'n') or 0)
  if lo0 > lo then
    if lo0 - lo >= nb then
      redis.call('DEL', w.h)
      n = 0
    else
      for i = lo, lo0 - 1 do
        local c = redis.call('HGET', w.h, str(i))
        if c then
          n = n - tonumber(c)
          redis.call('HDEL', w.h, str(i))
        end
      end
    end
    lo = lo0
  end
  while lo < cur and not redis.call('HGET', w.h, str(lo)) do lo = lo + 1 end
  w.lo, w.cur, w.used = lo, math.max(cur, lo), n
  if n > 0 then w.oldest = (lo + 1) * w.width + w.span end
  if n + w.need > w.limit then
    local need, acc = n - w.limit + w.need, 0
    w.free = (lo + nb) * w.width + w.span
    for i = lo, lo + nb - 1 do
      local c = redis.call('HGET', w.h, str(i))
      if c then
        acc = acc + tonumber(c)
        if acc >= need then
          w.free = (i + 1) * w.width + w.span
          break
        end
      end
    end
  end
end

local function prepare(w)
  w.used, w.oldest, w.free = 0, 0, 0
  if w.limit <= 0 then return end
  w.need = math.max(math.min(tonumber(ARGV[7]), w.limit), 1)
  if w.limit <= tonumber(ARGV[3]) then
    w.mode = 'exact'
    exact(w)
  else
    w.mode = 'buckets'
    bucketed(w)
  end
end

local function count(w)
  if w.limit <= 0 then return end
  local ttl = str((w.span + w.width) / 1000)
  if w.mode == 'exact' then
    for i = 1, w.need do
      redis.call('ZADD', w.z, str(now), str(now) .. ':' .. ARGV[4] .. ':' .. i)
    end
    redis.call('PEXPIRE', w.z, ttl)
    if w.used == 0 then w.oldest = now + w.span end
  else
    redis.call('HINCRBY', w.h, str(w.cur), w.need)
    redis.call('HSET', w.h, 'n', str(w.used + w.need), 'lo', str(w.lo))
    redis.call('PEXPIRE', w.h, ttl)
    if w.used == 0 then w.oldest = (w.cur + 1) * w.width + w.span end
  end
  w.used = w.used + w.need
end

-- save keeps a pruned hash consistent when nothing was counted.
local function save(w)
  if w.mode ~= 'buckets' then return end
  if w.used == 0 then
    redis.call('DEL', w.h)
  elseif redis.call('EXISTS', w.h) == 1 then
    redis.call('HSET', w.h, 'n', str(w.used), 'lo', str(w.lo))
  end
end

local m = {z = KEYS[1], h = KEYS[2], limit = tonumber(ARGV[1]), span = 60000000, width = 1000000}
local d = {z = KEYS[3], h = KEYS[4], limit = tonumber(ARGV[2]), span = 86400000000, width = 60000000}
prepare(m)
prepare(d)
local allowed = (m.limit <= 0 or m.used + m.need <= m.limit) and (d.limit <= 0 or d.used + d.need <= d.limit)
if allowed and ARGV[6] ~= '1' then
  count(m)
  count(d)
else
  save(m)
  save(d)
end
return {allowed and 1 or 0, now, m.used, m.oldest, m.free, d.used, d.oldest, d.free}
