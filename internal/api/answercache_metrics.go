package api

import "github.com/prometheus/client_golang/prometheus"

// collectors are the answer cache's Prometheus series, read from its
// counters at each scrape (the hit path only adds to an atomic counter).
// The hit rate is hits / (hits + misses), left to the reader: a rate of
// each counter over a window gives the recent one.
func (c *answerCache) collectors() []prometheus.Collector {
	stat := func(f func(AnswerCacheStats) int64) func() float64 {
		return func() float64 { return float64(f(c.statsNow())) }
	}
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "fragrance_answer_cache_hits_total",
			Help: "API answers served from the answer cache, or from another request making the same answer at the time.",
		}, stat(func(s AnswerCacheStats) int64 { return s.Hits })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "fragrance_answer_cache_misses_total",
			Help: "API answers made (the index's work and the encoding) because the answer cache did not hold them.",
		}, stat(func(s AnswerCacheStats) int64 { return s.Misses })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "fragrance_answer_cache_rejected_total",
			Help: "API answers made and not kept: cheaper to make again than worth their memory, or larger than a shard of the cache.",
		}, stat(func(s AnswerCacheStats) int64 { return s.Rejected })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "fragrance_answer_cache_evictions_total",
			Help: "Answers dropped from the answer cache to make room for others (lowest cost per byte and least recently used first).",
		}, stat(func(s AnswerCacheStats) int64 { return s.Evictions })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "fragrance_answer_cache_bytes",
			Help: "About the memory the answers kept for the current catalogue take.",
		}, stat(func(s AnswerCacheStats) int64 { return s.Bytes })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "fragrance_answer_cache_limit_bytes",
			Help: "The most the answer cache may take for the current catalogue (--answer-cache-mb, or its automatic size); 0 while off or before the first answer.",
		}, stat(func(s AnswerCacheStats) int64 { return s.LimitBytes })),
	}
}
