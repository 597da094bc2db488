// Package access decides who may call the API and how often. Its heart is
// the Guard's admission, a plain Go call every surface makes: given a Call
// (who: the key presented, or none; from where: the client IP under the
// trusted-proxy rule, the Origin of a browser; which endpoint, and its URL
// for the scraping walks), it returns an Admission (the key, the decision
// of its windows for the rate-limit headers, and Done, which meters the
// outcome) or a Refusal (the problem, Retry-After and the rate-limit
// headers). It reads and checks the key (the format and records are
// package apikey's), asks the limiter whether the key's windows admit the
// call (package ratelimit, in process or on Redis), counts the call into
// the meter (package meter) and watches for abuse. It knows storage only
// through the apikey.Store contract.
//
//	Check          the key check alone: a Pass, or a refusal (401, 403, 503, 429 failed checks)
//	Admit          Check, then the key's windows (429), the abuse signals and the walks
//	AdmitUsage     Admit on the usage budget, the key's windows only peeked at (/api/usage)
//	AdmitPass      Admit for a call of a key already checked (each tool call of POST /mcp)
//	AdmitAddress   a keyless call on its client IP's window (the site search, the sign-in form)
//
// Every refusal is made by one refusal builder (refusal.go): Refusal.Write
// answers it as problem JSON with its headers, and a surface that draws its
// own answer (the portal's page, the image host's placeholder, an MCP tool
// error) takes its Status and SetHeaders. No other file writes a 429
// (internal/archtest holds to it). The HTTP middleware is a thin adapter
// over the admission and the builder: Wrap, WrapUsage, Authenticate and
// LimitPerIP read the Call of a request (CallOf), answer a refusal, or set
// the headers, hand the handler the key (Caller) and report its status.
//
//	access/            the Guard: admission, refusals, key check and cache, client IP, headers, abuse signals
//	access/ratelimit/  sliding windows: the Limiter contract, MemLimiter
//	  redislimit/      the windows on Redis, shared by replicas
//	  limitertest/     the contract suite every limiter passes
//	access/meter/      counts requests, latency, clicks, views, empty searches; writes them in batches
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
// every request from it whose key is missing, malformed or unknown gets
// 429 until its window has room, so a key guesser learns nothing more,
// while a valid key from the same IP is served on its own limits: one
// broken client behind a NAT or a proxy must not lock out the others. They
// never count against any key. The client IP is the connection's peer, or
// X-Forwarded-For when the peer is a trusted proxy.
//
// # Headers
//
// Every authenticated answer, 429 included, carries RateLimit-Policy,
// RateLimit (r: requests left; t: seconds until the oldest counted request
// leaves the window, or, for a window that refused, until it has room) and
// X-RateLimit-Limit/-Remaining/-Reset for the window nearest to refusing.
//
// # The usage report
//
// A handler that reports on the key's own windows (/api/usage) goes behind
// WrapUsage (AdmitUsage) instead of Wrap: it is counted against a small
// budget of the key's own (Config.UsageBudget, 10 a minute and 500 a day, refusals named
// usage_minute and usage_day) and only peeks at the key's windows, so it
// answers while the key is rate-limited and costs it nothing.
//
// # Tier limits
//
// A key's limits are its tier's (Config.Tiers at start), with the key's own
// override of either number first. With Config.TierStore set, the Guard
// reads the tiers' limits from the store every Config.TierRefresh (10 s),
// so a change made by `fragrance tiers set` applies on every replica within
// seconds; while the store cannot be read, the limits in force stay.
//
// # Metering and abuse signals
//
// Every request that names a known key is counted into the meter with its
// endpoint and status, and, when a handler ran, how long it took. Abuse
// signals (a key refused 100 times in 10 minutes, a key seen from 50
// client IPs in 10 minutes, an IP that filled its failed-check window) go
// to the meter too, which stores them with the usage for the admin
// dashboard.
//
// # Scraping walks and automatic suspension
//
// Two more signals are patterns of scraping: page_walk, a key walking the
// perfume list through 50 consecutive pages within 10 minutes, and
// slug_walk, a key fetching 200 details in ascending slug order within 10
// minutes (AbuseConfig); and feed_walk, a key asking the change feed for
// 100,000 records within 10 minutes, each page counted at the size it is
// charged for (Call.Cost: the limiter counts a page of N records as
// ⌈N/100⌉ requests, AllowN). A walk survives answers out of order (parallel
// clients), a page fetched again and a few requests of another client of
// the key; walkStrays requests off it in a row end it. Each key's walks
// take a few hundred bytes, for at most AbuseConfig.MaxWalkers keys (the
// least recently seen is forgotten first), and cost a request of the two
// endpoints a map lookup under one lock; other endpoints, two string
// comparisons.
//
// AbuseConfig.AutoSuspend, empty by default, names the signals that
// suspend their key at once: the store's key is suspended, the Guard's
// cache updated (the key's next request on this replica gets 403
// suspended_api_key; other replicas follow with the key sync), and an
// audit entry appended through Config.Audit with Actor "system". A
// limit_hits signal suspends a free key only: a paying customer living at
// its limit is not abuse.
package access
