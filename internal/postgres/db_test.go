package postgres_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestCatalogueContract(t *testing.T) {
	t.Parallel()
	storetest.RunCatalogue(t, func(t *testing.T) catalog.Store { return open(t) })
}

func TestMigrationsIdempotent(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	ctx := context.Background()
	var first int
	for i := 0; i < 2; i++ {
		db := openAt(t, u)
		v, err := db.SchemaVersion(ctx)
		if err != nil || v < 1 || (i > 0 && v != first) {
			t.Fatalf("open #%d: schema version = %d, %v (first %d)", i, v, err, first)
		}
		first = v
		db.Close()
	}
}

// TestConcurrentOpen starts three "replicas" at once on one fresh schema:
// the advisory lock must let exactly one apply each migration.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	ctx := context.Background()
	const n = 3
	dbs := make([]*postgres.DB, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = postgres.Open(ctx, u)
		}()
	}
	wg.Wait()
	versions := map[int]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("open #%d: %v", i, errs[i])
		}
		defer dbs[i].Close()
		v, err := dbs[i].SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		versions[v] = true
	}
	if len(versions) != 1 {
		t.Fatalf("replicas see different schema versions: %v", versions)
	}
	if v, err := dbs[0].CatalogueVersion(ctx); err != nil || v != 0 {
		t.Fatalf("CatalogueVersion = %d, %v; want 0 (meta seeded once)", v, err)
	}
}

// TestUnavailable checks that a database that cannot be reached gives
// errors matching catalog.ErrUnavailable (so the API answers 503 and key
// checks fail closed), and that a plain failure does not.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("dead port", func(t *testing.T) {
		serverURL(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		_, err = postgres.Open(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/none?sslmode=disable&connect_timeout=5")
		if !errors.Is(err, catalog.ErrUnavailable) {
			t.Fatalf("Open of a dead port: err = %v, want ErrUnavailable", err)
		}
	})
	t.Run("closed pool", func(t *testing.T) {
		db := open(t)
		db.Close()
		if _, err := db.Perfumes(ctx); !errors.Is(err, catalog.ErrUnavailable) {
			t.Errorf("Perfumes after Close: err = %v, want ErrUnavailable", err)
		}
		if _, err := db.CatalogueVersion(ctx); !errors.Is(err, catalog.ErrUnavailable) {
			t.Errorf("CatalogueVersion after Close: err = %v, want ErrUnavailable", err)
		}
		if _, err := db.ImportPerfumes(ctx, []catalog.Perfume{storetest.Perfume(1, "A", "B", 2000)}, nil); !errors.Is(err, catalog.ErrUnavailable) {
			t.Errorf("ImportPerfumes after Close: err = %v, want ErrUnavailable", err)
		}
		if err := db.Ping(ctx); !errors.Is(err, catalog.ErrUnavailable) {
			t.Errorf("Ping after Close: err = %v, want ErrUnavailable", err)
		}
	})
	t.Run("cancelled is not unavailable", func(t *testing.T) {
		db := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := db.Perfumes(cctx)
		if !errors.Is(err, context.Canceled) || errors.Is(err, catalog.ErrUnavailable) {
			t.Fatalf("Perfumes with a cancelled context: err = %v, want Canceled only", err)
		}
	})
}

func TestSlugsWrittenBack(t *testing.T) {
	t.Parallel()
	db := open(t)
	ps := []catalog.Perfume{storetest.Perfume(1, "A", "B", 2000), storetest.Perfume(2, "A", "B", 2000)}
	if _, err := db.ImportPerfumes(context.Background(), ps, nil); err != nil {
		t.Fatal(err)
	}
	if ps[0].Slug != "a-b" || ps[1].Slug != "a-b-2000" {
		t.Fatalf("slugs written back = %q, %q", ps[0].Slug, ps[1].Slug)
	}
}

func TestDuplicateIDInOneImport(t *testing.T) {
	t.Parallel()
	db := open(t)
	a := storetest.Perfume(1, "A", "B", 2000)
	b := a
	b.Rating = 3
	res, err := db.ImportPerfumes(context.Background(), []catalog.Perfume{a, b}, nil)
	if err != nil || res != (catalog.ImportResult{Added: 1, Updated: 1}) {
		t.Fatalf("import = %+v, %v", res, err)
	}
	ps, err := db.Perfumes(context.Background())
	if err != nil || len(ps) != 1 || ps[0].Rating != 3 {
		t.Fatalf("Perfumes = %+v, %v; want the last record", ps, err)
	}
}

// TestRecoversAfterRestart: when every connection is cut (as a database
// restart does), calls fail with ErrUnavailable at worst and the pool
// recovers by itself, without reopening.
func TestRecoversAfterRestart(t *testing.T) {
	t.Parallel()
	u, name := newSchema(t)
	db := openAt(t, u)
	ctx := context.Background()
	if _, err := db.ImportPerfumes(ctx, []catalog.Perfume{storetest.Perfume(1, "A", "B", 2000)}, nil); err != nil {
		t.Fatal(err)
	}
	admin := adminConn(t, ctx, serverURL(t))
	defer admin.Close(ctx)
	var cut int
	if err := admin.QueryRow(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()`, name).Scan(&cut); err != nil || cut == 0 {
		t.Fatalf("terminated %d connections, %v", cut, err)
	}
	for try := 1; ; try++ {
		ps, err := db.Perfumes(ctx)
		if err == nil && len(ps) == 1 {
			break
		}
		if err != nil {
			t.Logf("try %d: %v", try, err)
		}
		if err != nil && !errors.Is(err, catalog.ErrUnavailable) {
			t.Fatalf("try %d after the cut: err = %v, want nil or ErrUnavailable", try, err)
		}
		if try > 10 {
			t.Fatalf("still failing after %d tries: %v", try, err)
		}
	}
}
