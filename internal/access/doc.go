// Package access is the gate in front of the API: API keys and their tiers,
// sliding-window rate limits, usage metering and abuse signals. Its storage
// needs are the KeyStore and UsageStore contracts, met by the backends
// (internal/sqlite; storetest holds their contract suites); its HTTP piece
// is the Guard, whose Wrap goes around every /api handler.
//
// # Keys
//
// A key is "fds_", 43 random base62 characters (256 bits from crypto/rand)
// and a 6-character base62 CRC32 of the random part: 53 characters. The
// checksum refuses a mistyped key before any store lookup. Only the SHA-256
// of the key and its display prefix ("fds_" and 8 characters) are stored;
// Issue returns the key once. States are active, suspended (403) and
// revoked (401, final).
//
// # Authentication and its cache
//
// Verified keys are cached per replica for Config.CacheTTL (10 s), and the
// keys changed in the store are fetched every Config.KeySyncInterval (2 s),
// so a suspension or revocation takes effect within about 2 s, 10 s at
// worst. When the store fails, a cached key keeps working for
// Config.StaleTTL (5 min) after its last successful lookup; any other key
// gets 503 unavailable: authentication fails closed, never open. Failed
// checks (malformed or unknown keys) are limited per client IP
// (Config.FailedChecks, 20 per minute, per replica); once an IP is over,
// all its requests get 429 until its window has room, so a key guesser
// learns nothing. They never count against any key. The client IP is the
// connection's peer, or X-Forwarded-For when the peer is a trusted proxy.
//
// # Rate limits
//
// Each key has a minute and a day window that slide: a request is admitted
// only if, counting it, no trailing 60 s and no trailing 24 h holds more
// admitted requests than the key's limits; refused requests are not
// counted. A window whose limit is at most DefaultExactMax (1024) keeps
// the exact timestamps of its newest requests and decides exactly. A
// larger one keeps one counter per bucket (1 s for the minute, 1 min for
// the day) and counts the bucket holding the window's start in full, so it
// never over-admits and under-admits at most as if the window were one
// bucket longer (61 s, 24 h 1 min). Memory per key is thus at most about
// 16 KiB whatever the tier, and keys idle for a day are forgotten.
//
// MemLimiter is the in-process backend; redislimit shares the windows
// between replicas through Redis, with the same contract (limitertest).
//
// # Headers
//
// Every authenticated answer, 429 included, carries RateLimit-Policy,
// RateLimit (r: requests left; t: seconds until the oldest counted request
// leaves the window, or, for a window that refused, until it has room) and
// X-RateLimit-Limit/-Remaining/-Reset for the window nearest to refusing.
//
// # Metering and abuse signals
//
// Requests are counted per key, endpoint, status class and hour in memory
// and written every Config.FlushInterval (5 s) in one transaction; the
// store adds them to hourly rows (kept Config.HourlyRetention, 14 days) and
// daily rows (kept). A failed write keeps the counts for the next one, and
// Guard.Close writes what is left. Abuse signals (a key refused 100 times in
// 10 minutes, a key seen from 50 client IPs in 10 minutes, an IP that
// filled its failed-check window) are stored with the usage for the admin
// dashboard.
package access
