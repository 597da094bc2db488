package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/admin"
)

// abuseFlags are serve's flags of the abuse signals: their thresholds, and
// the kinds that suspend their key.
type abuseFlags struct {
	window                                 *time.Duration
	limitHits, manyIPs, pageWalk, slugWalk *int
	feedWalk                               *int64
	autoSuspend                            *string
}

// addAbuseFlags adds the abuse signals' flags to serve's.
func addAbuseFlags(f *flags) abuseFlags {
	def := access.DefaultAbuseConfig()
	return abuseFlags{
		window:    f.Duration("abuse-window", def.Window, "the period the abuse signals count in; each is raised at most once per key (or client IP) per period"),
		limitHits: f.Int("abuse-limit-hits", int(def.LimitHits), "signal limit_hits: a key refused (429) this many times within --abuse-window"),
		manyIPs:   f.Int("abuse-many-ips", def.DistinctIPs, "signal many_ips: a key used from this many client IPs within --abuse-window"),
		pageWalk:  f.Int("abuse-page-walk", def.PageWalk, "signal page_walk: a key walking /api/perfumes through this many consecutive pages within --abuse-window"),
		slugWalk:  f.Int("abuse-slug-walk", def.SlugWalk, "signal slug_walk: a key fetching this many perfume details in slug order within --abuse-window"),
		feedWalk:  f.Int64("abuse-feed-walk", def.FeedWalk, "signal feed_walk: a key asking the change feed for this many records within --abuse-window (each page at the size it is charged for)"),
		autoSuspend: f.String("abuse-auto-suspend", "", "comma-separated signals that suspend their key at once, audited as done by \"system\": some of "+
			strings.Join(access.SuspendableSignals(), ", ")+" (limit_hits suspends free keys only); empty: none, the signals are only recorded"),
	}
}

// auditAppender is the part of admin.Store the Guard writes to.
type auditAppender interface {
	AppendAudit(ctx context.Context, e admin.AuditEntry) (admin.AuditEntry, error)
}

// config reads the flags into the Guard's abuse configuration, with the
// store's audit log (nil when the store keeps none: then auto-suspension
// is refused, since every suspension must be audited).
func (af abuseFlags) config(store any) (access.AbuseConfig, func(context.Context, admin.AuditEntry) error, error) {
	var c access.AbuseConfig
	if *af.window <= 0 {
		return c, nil, fmt.Errorf("--abuse-window %s: want a positive duration such as 10m", *af.window)
	}
	for _, n := range []struct {
		name  string
		value int
	}{{"limit-hits", *af.limitHits}, {"many-ips", *af.manyIPs}, {"page-walk", *af.pageWalk}, {"slug-walk", *af.slugWalk}, {"feed-walk", int(min(*af.feedWalk, 1<<31-1))}} {
		if n.value < 1 {
			return c, nil, fmt.Errorf("--abuse-%s %d: want a positive number", n.name, n.value)
		}
	}
	kinds, err := access.ParseSignalKinds(*af.autoSuspend)
	if err != nil {
		return c, nil, fmt.Errorf("--abuse-auto-suspend: %w", err)
	}
	var audit func(context.Context, admin.AuditEntry) error
	if a, ok := store.(auditAppender); ok {
		audit = func(ctx context.Context, e admin.AuditEntry) error {
			_, err := a.AppendAudit(ctx, e)
			return err
		}
	} else if len(kinds) > 0 {
		return c, nil, fmt.Errorf("--abuse-auto-suspend %s: this store keeps no audit log, and every suspension must be audited", *af.autoSuspend)
	}
	c = access.AbuseConfig{Window: *af.window, LimitHits: int64(*af.limitHits), DistinctIPs: *af.manyIPs,
		PageWalk: *af.pageWalk, SlugWalk: *af.slugWalk, FeedWalk: *af.feedWalk, AutoSuspend: kinds}
	return c, audit, nil
}
