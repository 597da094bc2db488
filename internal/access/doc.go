// Package access decides who may call the API and how often. Its HTTP
// piece is the Guard, whose Wrap goes around every keyed handler: it reads
// and checks the key (the format and records are package apikey's), asks
// the limiter whether the key's windows admit the request (package
// ratelimit, in process or on Redis), sets the rate-limit headers, counts
// the request into the meter (package meter) and watches for abuse. It
// knows storage only through the apikey.Store contract.
//
//	access/            the Guard: key check and cache, client IP, headers, abuse signals
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
// all its requests get 429 until its window has room, so a key guesser
// learns nothing. They never count against any key. The client IP is the
// connection's peer, or X-Forwarded-For when the peer is a trusted proxy.
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
// Every request that names a known key is counted into the meter with its
// endpoint and status, and, when a handler ran, how long it took. Abuse
// signals (a key refused 100 times in 10 minutes, a key seen from 50
// client IPs in 10 minutes, an IP that filled its failed-check window) go
// to the meter too, which stores them with the usage for the admin
// dashboard.
package access
