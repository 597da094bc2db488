package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/mcp"
	"github.com/fragrance-data/fragrance/internal/onewrite"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/server"
	"github.com/fragrance-data/fragrance/internal/view"
	"github.com/fragrance-data/fragrance/internal/web"
)

// serveConfig is everything serve reads from flags and the environment.
type serveConfig struct {
	addr, dsn, redis     *string
	redisOptional        *bool
	redisTimeout         *time.Duration
	baseURL, shopURL     *string
	imageBaseURL         *string
	imageAddr, imagePath *string
	imageDir             *string
	imageWorkers         *int
	imageQueueAll        *bool
	imageHost            imageHostFlags // serve_images.go
	trustedProxies       *string
	ipv6Prefix           *int
	tierLimits           *string
	tierRefresh          *time.Duration
	curated              *string
	seedFile             *string
	logFormat, logLevel  *string
	reloadEvery          *time.Duration
	shutdownTimeout      *time.Duration
	pprofAddr            *string
	answerCache          *string
	memoryLimit          *string
	gcPercent            *int
	metricsAddr          *string
	metricsToken         *string
	limits               *listenerLimitFlags
	abuse                abuseFlags     // serve_abuse.go
	neighbours           neighbourFlags // serve_neighbours.go

	// The website's (serve_web.go).
	analyticsSnippet *string
	siteSearchLimit  *int
	pageLimit        *int
	portal           portalFlags
	dashboard        dashboardFlags // serve_admin.go

	// Outgoing mail's (serve_mail.go).
	smtpURL, mailFrom, mailOutbox *string
	docs                          docsFlags // serve_docs.go
}

func serveFlags(cio cmdIO) (*flags, *serveConfig) {
	f := newFlags("serve", "serve [flags]\n\n"+
		"Starts the HTTP service. A new database is created and filled with the bundled\n"+
		"catalogue on first start; /healthz answers 200 once the catalogue is loaded.", cio)
	c := &serveConfig{
		addr:            f.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port)"),
		dsn:             f.DB(),
		redis:           f.String("redis", "", "Redis URL (redis://host:6379/0) to share rate-limit windows between replicas; serve refuses to start when it does not answer"),
		redisTimeout:    f.Duration("redis-timeout", 250*time.Millisecond, "how long one rate-limit decision waits for Redis before this replica decides on its own (counted as a Redis failure)"),
		redisOptional:   f.Bool("redis-optional", false, "start even when --redis does not answer, degraded: each replica limits on its own until Redis answers (shown in /healthz and /metrics)"),
		baseURL:         f.String("base-url", "", "public base URL of the service, used in buyUrl and image URLs (default http://ADDR, a wildcard host made localhost)"),
		shopURL:         f.String("shop-url", web.DefaultShopURL, "buy-link template; {brand} {name} {slug} {id} are filled in"),
		imageBaseURL:    f.String("image-base-url", "", "base URL of the image host in API answers (default BASE-URL + IMAGE-PATH; with --image-addr, BASE-URL's host with the image listener's port)"),
		imageAddr:       f.String("image-addr", "", "serve images on this separate listen address instead of under --image-path"),
		imagePath:       f.String("image-path", "/img", "path prefix of the image host on the main listener"),
		imageDir:        f.String("image-dir", "", "directory of stored images (default beside the SQLite file; PostgreSQL keeps them in the database)"),
		imageWorkers:    f.Int("image-workers", 1, "background-removal workers (low priority); 0 or less: none, and nothing is queued"),
		imageQueueAll:   f.Bool("image-queue-all", true, "with --image-workers above 0: queue a transparent image for every perfume that has none and no job yet (held and failed jobs are left alone)"),
		trustedProxies:  f.String("trusted-proxies", "", "comma-separated CIDRs whose X-Forwarded-For is trusted for client IPs"),
		ipv6Prefix:      f.Int("ipv6-prefix", access.DefaultIPv6Prefix, "length of the IPv6 prefix every per-IP limit counts as one client (a client is given a whole /64; 128: each address)"),
		tierLimits:      f.String("tier-limits", "", "tier limits that seed a new database, as tier=PERMINUTE/PERDAY,... (default "+apikey.DefaultTiers().String()+"); afterwards the store's, set by 'fragrance tiers set', win"),
		tierRefresh:     f.Duration("tier-refresh", 10*time.Second, "how often to read the tier limits from the store (a 'fragrance tiers set' applies within it)"),
		curated:         f.String("curated", "", "CSV file of curated similar pairs (slug,slug) for /similar"),
		seedFile:        f.String("seed-file", "", "catalogue file (JSON Lines or FragDB) that fills a new, empty database instead of the bundled catalogue"),
		logFormat:       f.String("log-format", "text", "log format: text or json"),
		logLevel:        f.String("log-level", "info", "log level: debug, info, warn or error"),
		reloadEvery:     f.Duration("reload-every", 5*time.Second, "how often to check the store for a newer catalogue"),
		shutdownTimeout: f.Duration("shutdown-timeout", 15*time.Second, "how long graceful shutdown waits for requests in flight"),
		answerCache:     f.String("answer-cache-mb", "auto", "megabytes of encoded answers kept per catalogue, those dearest to make per byte (repeated requests skip the index and the encoding); auto: a tenth of the memory limit, at most a quarter of what the loaded catalogue leaves of it less the encoded list items' share, within 8 and 256 (32 without a limit); 0: none"),
		memoryLimit:     f.String("memory-limit", defaultMemoryLimit, "soft limit of the Go heap (e.g. 350MiB, 1GiB; 0: none); GOMEMLIMIT, when set, wins"),
		gcPercent:       f.Int("gc-percent", defaultGCPercent, "heap growth, in percent of the live heap, that starts a collection (-1: only at the memory limit); GOGC, when set, wins"),
		pprofAddr:       f.String("pprof-addr", "", "serve Go profiles (/debug/pprof/) on this separate address, e.g. 127.0.0.1:6060; off when empty. Never expose it publicly"),
		metricsAddr:     f.String("metrics-addr", "", "serve /metrics (Prometheus) on this separate address, e.g. 127.0.0.1:9090; off when empty"),
		metricsToken:    f.String("metrics-token", "", "serve /metrics on the main listener too, to requests with Authorization: Bearer TOKEN (at least 16 characters); the token is also required on --metrics-addr"),
		limits:          limitFlags(f),
	}
	c.imageHost = newImageHostFlags(f)
	c.abuse = addAbuseFlags(f)
	c.neighbours = addNeighbourFlags(f)
	addWebFlags(f, c)
	addMailFlags(f, c)
	return f, c
}

func runServe(ctx context.Context, args []string, cio cmdIO) error {
	f, c := serveFlags(cio)
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() > 0 {
		f.Usage()
		return errUsage
	}
	if err := c.neighbours.check(); err != nil {
		return err
	}
	lb := newLogBuffer(cio.stderr, 64<<10, logFlushEvery)
	defer lb.Close()
	logger, access, err := newLogger(lb, *c.logFormat, *c.logLevel)
	if err != nil {
		return err
	}
	if err := applyMemoryLimit(*c.memoryLimit, cio.getenv, logger); err != nil {
		return err
	}
	if err := applyGCPercent(*c.gcPercent, *c.memoryLimit, cio.getenv, logger); err != nil {
		return err
	}
	return serve(ctx, c, logger, access)
}

// logFlushEvery is the longest an access-log line waits in the buffer.
const logFlushEvery = 100 * time.Millisecond

// newLogger builds the structured logger serve writes to stderr through
// lb, and the access log that writes the same lines to lb without going
// through slog.
func newLogger(lb *logBuffer, format, level string) (*slog.Logger, server.AccessLog, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: %w", level, err)
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: replaceLogAttr}
	switch format {
	case "text":
		return slog.New(flushingHandler{slog.NewTextHandler(lb, opts), lb}), accessLog{lb, lv, false}, nil
	case "json":
		return slog.New(flushingHandler{slog.NewJSONHandler(lb, opts), lb}), accessLog{lb, lv, true}, nil
	}
	return nil, nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// replaceLogAttr applies the log's conventions to every attribute:
// durations are strings such as "12.3ms" in text and JSON alike (JSON would
// otherwise carry bare nanoseconds; the access log follows the same rule,
// see server.AccessEntry), and anything shaped like an API key in a string
// or an error is cut to its prefix (apikey.RedactSecrets), so no secret
// reaches a log line whatever a client sent.
func replaceLogAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindDuration:
		return slog.String(a.Key, a.Value.Duration().String())
	case slog.KindString:
		if s := a.Value.String(); strings.Contains(s, "fds") {
			return slog.String(a.Key, apikey.RedactSecrets(s))
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			if s := err.Error(); strings.Contains(s, "fds") {
				return slog.String(a.Key, apikey.RedactSecrets(s))
			}
		}
	}
	return a
}

// redisLog carries the Redis client's own log lines (reconnects, pool
// trouble) into the service's log at WARN, instead of its raw lines on
// standard error.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.WarnContext(ctx, "redis client", "detail", strings.TrimSpace(fmt.Sprintf(format, v...)))
}

// serve runs the service until ctx is cancelled, then shuts down gracefully.
func serve(ctx context.Context, c *serveConfig, log *slog.Logger, accessLog server.AccessLog) error {
	limits, err := c.limits.limits()
	if err != nil {
		return err
	}
	answerCacheMB, err := answerCacheSize(*c.answerCache)
	if err != nil {
		return err
	}
	metrics, err := newMetricsAccess(*c.metricsToken)
	if err != nil {
		return err
	}
	mailer, stopMail, err := newMailer(c, log)
	if err != nil {
		return err
	}
	defer stopMail(context.Background()) // on the way out after an error; the shutdown below stops it in time
	if *c.redis != "" {
		redis.SetLogger(redisLog{log})
	}
	store, err := openStore(ctx, *c.dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	logDuplicateAccounts(ctx, store, log)
	ref, err := bundled.LoadReference()
	if err != nil {
		return err
	}
	lns, err := listenAll(c)
	if err != nil {
		return err
	}
	defer lns.closeAll() // a no-op for listeners whose server has been shut down
	ln := lns.main
	urls, err := derivePublicURLs(*c.baseURL, *c.imageBaseURL, *c.imagePath, ln.Addr(), lns.imageAddr())
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := meter.New(store, meter.Options{Logger: log, Registerer: reg})
	if err != nil {
		return err
	}
	m.Start()
	guard, closeLimiter, err := newGuard(ctx, c, store, m, log, reg)
	if err != nil {
		return err
	}
	defer closeLimiter()
	holder := index.NewHolder(nil)
	imgs, err := startImages(ctx, c, store, ref, holder, urls.images, lns.image, limits, log, accessLog)
	if err != nil {
		return err
	}
	shapes := view.NewBuilder(urls.base, imgs.svc, ref.Color)
	terms := &dataTerms{log: log, holder: holder}
	pages, err := newPages(c, pageDeps{holder: holder, urls: shapes, imageBase: urls.images, store: store,
		mailer: mailer, guard: guard, meter: m, log: log, terms: terms})
	if err != nil {
		return err
	}
	metricsHandler := metrics.handler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	imagePath := *c.imagePath
	if *c.imageAddr != "" {
		imagePath = "" // served by its own listener
	}
	srv := server.New(server.Config{
		Catalogue: holder,
		API: api.New(api.Config{
			Catalogue:     holder,
			View:          shapes,
			SiteSearch:    siteSearchLimit(guard, *c.siteSearchLimit),
			Guard:         guard,
			Caller:        guard,
			Usage:         m,
			Changes:       store,
			Logger:        log,
			AnswerCacheMB: answerCacheMB,
			MemoryLimit:   memoryLimit(),
			Registry:      reg,
		}),
		MCP: mcp.Handler(mcp.Config{Catalogue: holder, View: shapes, Version: version,
			PerfumeMarkdown: pages.public.PerfumeMarkdown, AllowedHosts: urls.hosts()}, guard),
		Images:    imgs.svc.Handler(),
		ImagePath: imagePath,
		Pages:     pages,
		NotFound:  pages.NotFound(),
		Health:    healthOf(store, guard),
		Metrics:   metrics.public(metricsHandler),
		Logger:    log,
		AccessLog: accessLog,
		Registry:  reg,
		Version:   version,
	})
	hs := newHTTPServer(srv, limits, log)
	hs.ConnContext = onewrite.ConnContext
	errc := make(chan error, 2)
	go func() { errc <- hs.Serve(onewrite.Listener(ln)) }()
	var ms *http.Server
	if lns.metrics != nil {
		ms = newHTTPServer(metricsMux(metricsHandler), limits, log)
		go ms.Serve(lns.metrics)
		log.Info("metrics listening", "addr", lns.metrics.Addr().String())
	}
	if *c.pprofAddr != "" {
		stopProfiles, err := servePprof(*c.pprofAddr, log)
		if err != nil {
			hs.Close()
			return err
		}
		defer stopProfiles()
	}
	log.Info("listening", "addr", ln.Addr().String(), "db", redactDSN(*c.dsn), "version", version)
	urls.log(log)
	metrics.log(log, lns.metrics != nil)

	loader := &catalogueLoader{store: store, ref: ref, holder: holder, log: log, curatedPath: *c.curated, seedFile: *c.seedFile,
		changed: make(chan struct{}, 1), neighbours: newNeighbourFiller(ctx, c.neighbours, store, holder, log, reg), terms: terms}
	if pg, ok := store.(*postgres.DB); ok {
		// Replicas hear of imports and key changes at once, not at the next poll.
		pg.SetLogger(log)
		go pg.WatchCatalogue(ctx, func(int64) { loader.notify() })
		go pg.WatchKeys(ctx, func(string) { guard.KeysChanged() })
	}
	go func() {
		if err := loader.run(ctx, *c.reloadEvery); err != nil {
			errc <- err
		}
	}()

	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	log.Info("shutting down", "timeout", c.shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), *c.shutdownTimeout)
	defer cancel()
	shutdownErr := errors.Join(hs.Shutdown(sctx), imgs.shutdown(sctx))
	if ms != nil {
		shutdownErr = errors.Join(shutdownErr, ms.Shutdown(sctx))
	}
	shutdownErr = errors.Join(shutdownErr, stopMail(sctx))
	// Every request has finished: flush what the meter counted, then the
	// deferred closes release the limiter and the store.
	guard.Close(sctx)
	if err := m.Close(sctx); err != nil {
		shutdownErr = errors.Join(shutdownErr, fmt.Errorf("flush usage: %w", err))
	}
	if shutdownErr != nil {
		return fmt.Errorf("shutdown: %w", shutdownErr)
	}
	log.Info("stopped")
	return nil
}

// newGuard builds the access layer: tiers (from the store, seeded by
// --tier-limits), trusted proxies and the limiter (in-process, or Redis
// with the in-process one as fallback).
func newGuard(ctx context.Context, c *serveConfig, store backend, m *meter.Meter, log *slog.Logger, reg prometheus.Registerer) (*access.Guard, func(), error) {
	if *c.tierRefresh <= 0 {
		return nil, nil, fmt.Errorf("--tier-refresh %s: want a positive duration such as 10s", *c.tierRefresh)
	}
	tiers, err := seedTiers(ctx, store, *c.tierLimits, log)
	if err != nil {
		return nil, nil, err
	}
	trusted, err := access.ParseTrustedProxies(*c.trustedProxies)
	if err != nil {
		return nil, nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if *c.ipv6Prefix < 1 || *c.ipv6Prefix > 128 {
		return nil, nil, fmt.Errorf("--ipv6-prefix %d: want a prefix length from 1 to 128, such as 64", *c.ipv6Prefix)
	}
	abuse, audit, err := c.abuse.config(store)
	if err != nil {
		return nil, nil, err
	}
	mem := ratelimit.NewMemLimiter(ratelimit.MemOptions{})
	var limiter ratelimit.Limiter = mem
	closeLimiter := func() {}
	if *c.redis != "" {
		if *c.redisTimeout <= 0 {
			return nil, nil, fmt.Errorf("--redis-timeout %s: want a positive duration such as 250ms", *c.redisTimeout)
		}
		rl, err := redislimit.New(ctx, redislimit.Options{URL: *c.redis, Local: mem, Logger: log, Registerer: reg, Timeout: *c.redisTimeout})
		if err != nil {
			return nil, nil, fmt.Errorf("--redis %s: %w", redactDSN(*c.redis), err)
		}
		if err := requireRedis(rl, *c.redis, *c.redisOptional, log); err != nil {
			rl.Close()
			return nil, nil, err
		}
		limiter, closeLimiter = rl, func() { rl.Close() }
	}
	guard, err := access.NewGuard(store, m, limiter, access.Config{
		Tiers: tiers, TierStore: store, TierRefresh: *c.tierRefresh, TrustedProxies: trusted, IPv6Prefix: *c.ipv6Prefix, Logger: log, Registerer: reg,
		Abuse: abuse, Audit: audit,
	})
	if err != nil {
		closeLimiter()
		return nil, nil, err
	}
	if len(abuse.AutoSuspend) > 0 {
		log.Info("abuse: keys are suspended automatically on these signals", "signals", strings.Join(abuse.AutoSuspend, ","))
	}
	return guard, closeLimiter, nil
}

// healthOf reports the store and the rate limiter for /healthz.
func healthOf(store interface{ Ping(context.Context) error }, guard *access.Guard) func(context.Context) server.Health {
	return func(ctx context.Context) server.Health {
		h := server.Health{Ready: true, Components: map[string]string{"store": "ok"}}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := store.Ping(pctx); err != nil {
			h.Components["store"] = "unreachable"
		}
		ls := guard.LimiterStatus()
		h.Components["limiter"] = limiterHealth(ls)
		h.Degraded = h.Components["store"] != "ok" || ls.Degraded
		return h
	}
}

// answerCacheSize maps --answer-cache-mb to api.Config.AnswerCacheMB, where
// 0 means the automatic size and a negative number means none.
func answerCacheSize(flag string) (int, error) {
	if flag == "auto" {
		return 0, nil
	}
	n, err := strconv.Atoi(flag)
	switch {
	case err != nil || n < 0:
		return 0, fmt.Errorf("--answer-cache-mb %q: want auto, or megabytes (0: none)", flag)
	case n == 0:
		return -1, nil
	}
	return n, nil
}
