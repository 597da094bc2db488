package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// policyOf is the RateLimit-Policy a key's request is answered with.
func policyOf(t *testing.T, base, key string) string {
	t.Helper()
	_, _, h := keyedGet(t, http.DefaultClient, base+"/api/perfumes?limit=1", key)
	return h.Get("RateLimit-Policy")
}

// TestTierLimitsFlagSeedsStore: the server and the commands agree on the
// tiers' limits (the server must not run free=5/10 from --tier-limits
// while `keys create` and `keys list` show 60/1000). The flag seeds the
// store on the first start, every command reads the store, and a later start with another flag value keeps the
// store's limits and says so.
func TestTierLimitsFlagSeedsStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	base, stop := startServe(t, noEnv, "--db", db, "--tier-limits", "free=5/10")
	out := runCmd(t, "keys", "create", "--db", db, "--tier", "free", "--email", "seed@example.com")
	if !strings.Contains(out, "5 (tier default)") || !strings.Contains(out, "10 (tier default)") {
		t.Errorf("keys create shows other limits than the server's free=5/10:\n%s", out)
	}
	key := lastLine(out)
	if list := runCmd(t, "keys", "list", "--db", db); !regexp.MustCompile(`free\s+active\s+5\s+10\s`).MatchString(list) {
		t.Errorf("keys list shows other limits than the server's free=5/10:\n%s", list)
	}
	if got := runCmd(t, "tiers", "list", "--db", db); !regexp.MustCompile(`(?m)^free\s+5\s+10\s*$`).MatchString(got) ||
		!regexp.MustCompile(`(?m)^pro\s+1000\s+250000\s*$`).MatchString(got) {
		t.Errorf("tiers list:\n%s", got)
	}
	if p := policyOf(t, base, key); p != `"minute";q=5;w=60, "day";q=10;w=86400` {
		t.Errorf("policy = %q, want free=5/10", p)
	}
	stop()

	// The next start with another flag value: the store wins, with a WARN.
	base, _, log := startServeLog(t, noEnv, "--db", db, "--tier-limits", "free=7/70,pro=1000/250000")
	if p := policyOf(t, base, key); p != `"minute";q=5;w=60, "day";q=10;w=86400` {
		t.Errorf("policy after a restart with free=7/70 = %q; the store's free=5/10 should win", p)
	}
	var warns []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "level=WARN") && strings.Contains(l, "tier limits") {
			warns = append(warns, l)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "free=7/70") || !strings.Contains(warns[0], "free=5/10") {
		t.Errorf("want one WARN naming free=7/70 and free=5/10 (none for pro, which agrees), have %q", warns)
	}
}

// TestTiersSetReachesEveryReplica: `fragrance tiers set` changes the
// limits of every server on the database within their --tier-refresh,
// without a restart: two servers on one SQLite file, and on one
// PostgreSQL database when the test environment has one.
func TestTiersSetReachesEveryReplica(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		tiersReachReplicas(t, filepath.Join(t.TempDir(), "shared.db"))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		pg := os.Getenv("FRAGRANCE_TEST_POSTGRES")
		if pg == "" {
			t.Skip("FRAGRANCE_TEST_POSTGRES not set")
		}
		tiersReachReplicas(t, freshSchema(t, pg))
	})
}

func tiersReachReplicas(t *testing.T, db string) {
	args := []string{"--db", db, "--tier-refresh", "100ms"}
	baseA, _ := startServe(t, noEnv, args...)
	baseB, _ := startServe(t, noEnv, args...)
	key := lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "pro", "--email", "replicas@example.com"))
	for _, base := range []string{baseA, baseB} {
		if p := policyOf(t, base, key); p != `"minute";q=1000;w=60, "day";q=250000;w=86400` {
			t.Fatalf("%s: policy before = %q", base, p)
		}
	}
	if out := runCmd(t, "tiers", "set", "--db", db, "pro", "--per-minute", "7", "--per-day", "700"); !strings.Contains(out, "pro: 7 per minute, 700 per day") {
		t.Errorf("tiers set printed %q", out)
	}
	for _, base := range []string{baseA, baseB} {
		waitFor(t, "the new pro limits on "+base, func() bool {
			return policyOf(t, base, key) == `"minute";q=7;w=60, "day";q=700;w=86400`
		})
	}
	// One number alone keeps the other.
	runCmd(t, "tiers", "set", "--db", db, "--per-day", "900", "pro")
	if got := runCmd(t, "tiers", "list", "--db", db); !regexp.MustCompile(`(?m)^pro\s+7\s+900\s*$`).MatchString(got) {
		t.Errorf("tiers list after --per-day alone:\n%s", got)
	}
	if got := runCmd(t, "keys", "list", "--db", db); !regexp.MustCompile(`pro\s+active\s+7\s+900\s`).MatchString(got) {
		t.Errorf("keys list after tiers set:\n%s", got)
	}
}

// TestTiersCommandErrors: every wrong input gets a clear error and
// changes nothing.
func TestTiersCommandErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	runCmd(t, "migrate", "--db", db)
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"set", "gold", "--per-minute", "5"}, nil, `unknown tier "gold"`},
		{[]string{"set", "free", "--per-minute", "0"}, nil, "--per-minute 0: want a positive whole number"},
		{[]string{"set", "free", "--per-day", "-3"}, nil, "--per-day -3: want a positive whole number"},
		{[]string{"set", "free", "--per-minute", "ten"}, nil, `invalid value "ten" for flag -per-minute`},
		{[]string{"set", "free"}, nil, "give --per-minute, --per-day or both"},
		{[]string{"set", "--per-minute", "5"}, nil, "missing TIER"},
		{[]string{"set", "free", "pro", "--per-minute", "5"}, nil, "Usage: fragrance tiers set"},
		{[]string{"set", "free"}, map[string]string{"FRAGRANCE_PER_MINUTE": "x"}, `FRAGRANCE_PER_MINUTE="x": not a whole number`},
		{[]string{"set", "free"}, map[string]string{"FRAGRANCE_PER_DAY": "0"}, "--per-day 0: want a positive whole number"},
		{[]string{"list", "extra"}, nil, "Usage: fragrance tiers list"},
		{[]string{"nope"}, nil, `unknown command "nope"`},
	} {
		env := func(k string) string { return tc.env[k] }
		var out, errb bytes.Buffer
		err := run(context.Background(), append(append([]string{"tiers"}, tc.args...), "--db", db), env, strings.NewReader(""), &out, &errb)
		if err == nil {
			t.Errorf("tiers %v: accepted", tc.args)
			continue
		}
		if msg := err.Error() + errb.String(); !strings.Contains(msg, tc.want) {
			t.Errorf("tiers %v: %q, want it to say %q", tc.args, msg, tc.want)
		}
	}
	// Environment variables work like the flags.
	env := func(k string) string {
		return map[string]string{"FRAGRANCE_PER_MINUTE": "11", "FRAGRANCE_DB": db}[k]
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"tiers", "set", "basic"}, env, strings.NewReader(""), &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	got := runCmd(t, "tiers", "list", "--db", db)
	if !regexp.MustCompile(`(?m)^basic\s+11\s+25000\s*$`).MatchString(got) || !regexp.MustCompile(`(?m)^free\s+60\s+1000\s+\(default`).MatchString(got) {
		t.Errorf("tiers list after the failures and FRAGRANCE_PER_MINUTE=11:\n%s", got)
	}
}

// TestServeTierFlagErrors: serve refuses tier settings it cannot use.
func TestServeTierFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tier-refresh", "0s"}, "--tier-refresh 0s: want a positive duration"},
		{[]string{"--tier-limits", "gold=1/2"}, `unknown tier "gold"`},
		{[]string{"--tier-limits", "free=0/2"}, "want two positive whole numbers"},
	} {
		listening, err, log := serveOutcome(t, append([]string{"--db", filepath.Join(t.TempDir(), "f.db")}, tc.args...)...)
		if listening || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %v: listening %v, err %v; want %q\n%s", tc.args, listening, err, tc.want, log)
		}
	}
}
