package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
)

// requireRedis refuses to start on a --redis that does not answer: a
// mistyped address would otherwise leave every replica limiting on its
// own, so N replicas admit N times the limits. With --redis-optional the
// service starts degraded instead (logged, and shown by /healthz and
// /metrics) and moves to Redis when it answers.
func requireRedis(rl *redislimit.Limiter, url string, optional bool, log *slog.Logger) error {
	st := rl.Status()
	if !st.Degraded {
		return nil
	}
	if !optional {
		return fmt.Errorf("--redis %s: Redis does not answer at start-up (%s); check the address, or pass --redis-optional to start with in-process limits (each replica then limits on its own)",
			redactDSN(url), st.LastError)
	}
	log.Warn("rate limiter: --redis does not answer; starting degraded with in-process limits (--redis-optional): until Redis answers, each replica limits on its own",
		"redis", redactDSN(url), "err", st.LastError)
	return nil
}

// limiterHealth is components.limiter of /healthz: "memory" (no Redis
// configured), "redis", or "degraded: in-process (…)" while a configured
// Redis does not answer.
func limiterHealth(st ratelimit.Status) string {
	if !st.Degraded {
		return st.Backend
	}
	return fmt.Sprintf("degraded: in-process (%s unreachable since %s)", st.Backend, st.Since.UTC().Format(time.RFC3339))
}
