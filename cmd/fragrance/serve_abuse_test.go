package main

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/admin"
)

// auditStore keeps the audit entries appended to it.
type auditStore struct{ entries []admin.AuditEntry }

func (a *auditStore) AppendAudit(_ context.Context, e admin.AuditEntry) (admin.AuditEntry, error) {
	e.ID = int64(len(a.entries) + 1)
	a.entries = append(a.entries, e)
	return e, nil
}

func abuseFlagsOf(t *testing.T, env map[string]string, args ...string) abuseFlags {
	t.Helper()
	f, c := serveFlags(cmdIO{getenv: func(k string) string { return env[k] }, stdout: io.Discard, stderr: io.Discard})
	if err := f.parse(args); err != nil {
		t.Fatal(err)
	}
	return c.abuse
}

func TestAbuseFlags(t *testing.T) {
	// The defaults are the Guard's; auto-suspend is off.
	c, audit, err := abuseFlagsOf(t, nil).config(struct{}{})
	if err != nil || audit != nil || !reflect.DeepEqual(c, flagPart(access.DefaultAbuseConfig())) {
		t.Fatalf("defaults: %+v, audit %v, %v", c, audit != nil, err)
	}
	store := &auditStore{}
	c, audit, err = abuseFlagsOf(t, map[string]string{"FRAGRANCE_ABUSE_PAGE_WALK": "30"},
		"--abuse-window", "5m", "--abuse-limit-hits", "7", "--abuse-many-ips", "9", "--abuse-slug-walk", "120",
		"--abuse-feed-walk", "5000", "--abuse-auto-suspend", "page_walk, Slug_Walk, feed_walk").config(store)
	want := access.AbuseConfig{Window: 5 * time.Minute, LimitHits: 7, DistinctIPs: 9, PageWalk: 30, SlugWalk: 120, FeedWalk: 5000,
		AutoSuspend: []string{"page_walk", "slug_walk", "feed_walk"}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("set: %+v, %v", c, err)
	}
	if err := audit(context.Background(), admin.AuditEntry{Actor: "system", Target: "fds_x"}); err != nil || len(store.entries) != 1 {
		t.Fatalf("audit: %v, %+v", err, store.entries)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--abuse-auto-suspend", "page_walk"}, "no audit log"},
		{[]string{"--abuse-auto-suspend", "failed_checks"}, "client IP"},
		{[]string{"--abuse-auto-suspend", "scrapers"}, "unknown signal"},
		{[]string{"--abuse-window", "0s"}, "--abuse-window"},
		{[]string{"--abuse-page-walk", "0"}, "--abuse-page-walk 0"},
		{[]string{"--abuse-feed-walk", "0"}, "--abuse-feed-walk 0"},
		{[]string{"--abuse-many-ips", "-1"}, "--abuse-many-ips -1"},
	} {
		if _, _, err := abuseFlagsOf(t, nil, tc.args...).config(struct{}{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// flagPart is the part of c the flags set: the endpoints and the bound of
// walkers are not flags.
func flagPart(c access.AbuseConfig) access.AbuseConfig {
	c.ListEndpoint, c.DetailEndpoint, c.FeedEndpoint, c.MaxWalkers = "", "", "", 0
	return c
}
