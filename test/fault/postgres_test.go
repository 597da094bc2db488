package fault

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// needPostgres returns FRAGRANCE_TEST_POSTGRES, skipping without it.
func needPostgres(t *testing.T) string {
	t.Helper()
	needFault(t)
	dsn := os.Getenv("FRAGRANCE_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("FRAGRANCE_TEST_POSTGRES is needed to cut PostgreSQL away from the service")
	}
	return dsn
}

// freshSchema creates an empty schema and returns a URL that uses it; the
// schema is dropped when the test ends. A configured database that cannot
// be reached fails the test.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	name := "fault_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("FRAGRANCE_TEST_POSTGRES is set but unusable: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err == nil {
			conn.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE")
			conn.Close(context.Background())
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestPostgresCut: every connection between the service and PostgreSQL is
// cut and new ones refused for a few seconds under load, then allowed
// again. While the store is away a key the service has cached keeps
// working, keys it has not cached fail closed (503, never 200), and
// malformed keys are 401 as always; once the store is back the service
// answers everything again without a restart, and every admitted request
// is in the store's usage.
func TestPostgresCut(t *testing.T) {
	pg := needPostgres(t)
	direct := freshSchema(t, pg)
	proxy := startProxy(t, hostPort(t, pg))
	keyA, prefixA := unlimitedKey(t, direct)
	keyB, prefixB := unlimitedKey(t, direct) // first used while the store is away
	svc := startService(t, "--db", viaProxy(t, direct, proxy.Addr()))
	if code, body := getJSON(svc.base+"/api/perfumes/dior-sauvage", keyA); code != http.StatusOK {
		t.Fatalf("key A before the cut: %d %v", code, body)
	}
	l := startLoad(svc.base, keyA, 4, 2*time.Millisecond)
	time.Sleep(time.Second)

	proxy.setCut(true)
	cutAt := time.Now()
	waitFor(t, "healthz to show the store unreachable", 15*time.Second, func() bool { return health(t, svc.base)["store"] == "unreachable" })
	var servedB int64
	for time.Since(cutAt) < 4*time.Second {
		code, body := getJSON(svc.base+"/api/perfumes?limit=1", keyB)
		if code != http.StatusServiceUnavailable || body["code"] != "unavailable" {
			t.Errorf("store away: key B (not cached) answered %d %v; want 503 unavailable", code, body)
		}
		// Few bad keys: failed key checks are limited per client IP
		// (20 a minute), and this test is not about that limit.
		unknownKeyRefused(t, svc.base, "store away")
		time.Sleep(time.Second)
	}
	if h := health(t, svc.base); h["status"] != "200" && h["status"] != "503" {
		t.Errorf("healthz while the store is away: %v", h)
	}
	proxy.setCut(false)
	restoredAt := time.Now()

	took := waitFor(t, "key B to be served once PostgreSQL is back", 30*time.Second, func() bool {
		code, _ := getJSON(svc.base+"/api/perfumes?limit=1", keyB)
		if code == http.StatusOK {
			servedB++
		}
		return code == http.StatusOK
	})
	recovered := time.Now()
	if code := unknownKeyRefused(t, svc.base, "store back"); code != http.StatusUnauthorized {
		t.Errorf("store back: an unknown key answered %d, want 401", code)
	}
	time.Sleep(3 * time.Second) // load on a recovered service
	l.stop()
	as := l.snapshot()
	t.Logf("cut %s, recovered %s after the restore; key A: before the cut %s; during %s; after %s; proxy refused %d connections",
		restoredAt.Sub(cutAt).Round(time.Millisecond), took.Round(time.Millisecond),
		byStatus(as, time.Time{}, cutAt), byStatus(as, cutAt, restoredAt), byStatus(as, restoredAt, time.Now()), proxy.refused)
	noFailuresAfter(t, as, recovered, "key A once the store was back")
	for _, a := range as {
		if a.status >= 500 && a.status != http.StatusServiceUnavailable {
			t.Errorf("key A answered %d: only 503 may come of a store outage", a.status)
			break
		}
	}
	if n := metric(t, svc.base, flushError); n < 1 {
		t.Logf("no usage flush failed during the %s cut (none fell in it)", restoredAt.Sub(cutAt).Round(time.Second))
	}

	// Counted without a restart: the meter retried what failed.
	admittedA := admitted(as) + 1 // and the first request, before the load
	lag := waitCounted(t, direct, prefixA, admittedA)
	waitCounted(t, direct, prefixB, servedB)
	t.Logf("key A: %d admitted, all counted %s after the load", admittedA, lag.Round(100*time.Millisecond))
	svc.stop()
	if got := counted2xx(t, direct, prefixA); got != admittedA {
		t.Errorf("after the stop key A has %d counted, %d admitted", got, admittedA)
	}
}
