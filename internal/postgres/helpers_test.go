package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/postgres"
)

// envURL names the variable that points the tests at a server, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const envURL = "FRAGRANCE_TEST_POSTGRES"

// serverURL returns the test server's URL, skipping the test when none is
// configured. A configured server that cannot be reached fails the test
// (see schemaURL): CI sets the variable, and a backend suite skipped there
// would pass unnoticed.
func serverURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skipf("%s is not set; skipping the PostgreSQL backend", envURL)
	}
	return u
}

// adminConn connects to the test server itself.
func adminConn(t testing.TB, ctx context.Context, base string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s is set but the server cannot be used: %v", envURL, err)
	}
	return conn
}

// schemaURL creates a fresh, empty schema on the test server and returns a
// URL whose connections use it; the schema is dropped when the test ends.
// Every test has its own schema, so tests run in parallel and leave nothing.
func schemaURL(t testing.TB) string {
	t.Helper()
	u, _ := newSchema(t)
	return u
}

// newSchema is schemaURL that also returns the schema's name, which is
// also the application_name of its connections (so a test can find them).
func newSchema(t testing.TB) (string, string) {
	t.Helper()
	base := serverURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b [6]byte
	rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	conn := adminConn(t, ctx, base)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn := adminConn(t, ctx, base)
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withParam(t, withParam(t, base, "search_path", name), "application_name", name), name
}

// withParam adds a connection parameter to a URL or keyword/value string.
func withParam(t testing.TB, base, key, value string) string {
	t.Helper()
	if !strings.Contains(base, "://") {
		return base + " " + key + "=" + value
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", envURL, err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// openAt opens the database at u, closed when the test ends.
func openAt(t testing.TB, u string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// open opens a database in a fresh schema.
func open(t testing.TB) *postgres.DB {
	t.Helper()
	return openAt(t, schemaURL(t))
}
