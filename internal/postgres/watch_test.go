package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/postgres"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

// waitLimit only keeps a broken test from hanging; nothing is timed.
const waitLimit = 30 * time.Second

// watcher runs a watch in the background until the test ends.
func watcher(t *testing.T, run func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch returned %v", err)
		}
	})
}

// next returns the next value from c or fails the test.
func next[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %s", what, waitLimit)
		panic("unreachable")
	}
}

// nextMatching skips values until want is seen.
func nextMatching[T comparable](t *testing.T, c <-chan T, want T, what string) {
	t.Helper()
	for next(t, c, what) != want {
	}
}

// listens returns a channel of the server pids of db's watch connections.
func listens(db *postgres.DB) <-chan uint32 {
	pids := make(chan uint32, 16)
	postgres.SetOnListen(db, func(_ string, pid uint32) { pids <- pid })
	return pids
}

// TestWatchCatalogue: an import through one *DB (another replica) reaches
// the watch of another, also after the watch's connection was cut.
func TestWatchCatalogue(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	watching, importing := openAt(t, u), openAt(t, u)
	pids := listens(watching)
	versions := make(chan int64, 16)
	watcher(t, func(ctx context.Context) error {
		return watching.WatchCatalogue(ctx, func(v int64) { versions <- v })
	})
	pid := next(t, pids, "listen")
	if v := next(t, versions, "initial version"); v != 0 {
		t.Fatalf("initial call with version %d, want 0", v)
	}
	ctx := context.Background()
	if _, err := importing.ImportPerfumes(ctx, []catalog.Perfume{storetest.Perfume(1, "A", "One", 2000)}, nil); err != nil {
		t.Fatal(err)
	}
	nextMatching(t, versions, 1, "version 1")

	// Cut the watch's connection; the watch reconnects and reports the
	// current version, since it might have missed a notification.
	terminate(t, importing, pid)
	if again := next(t, pids, "listen after reconnect"); again == pid {
		t.Fatalf("reconnected on the same server process %d", pid)
	}
	nextMatching(t, versions, 1, "version after reconnect")
	if _, err := importing.ImportPerfumes(ctx, []catalog.Perfume{storetest.Perfume(2, "A", "Two", 2000)}, nil); err != nil {
		t.Fatal(err)
	}
	nextMatching(t, versions, 2, "version 2")
}

// TestWatchKeys: a key change notified on one *DB reaches another's watch.
func TestWatchKeys(t *testing.T) {
	t.Parallel()
	u := schemaURL(t)
	watching, other := openAt(t, u), openAt(t, u)
	pids := listens(watching)
	prefixes := make(chan string, 16)
	watcher(t, func(ctx context.Context) error {
		return watching.WatchKeys(ctx, func(p string) { prefixes <- p })
	})
	pid := next(t, pids, "listen")
	if p := next(t, prefixes, "initial resync"); p != "" {
		t.Fatalf("initial call with %q, want the empty resync prefix", p)
	}
	if err := other.NotifyKeyChange(context.Background(), "fds_AbCd1234"); err != nil {
		t.Fatal(err)
	}
	nextMatching(t, prefixes, "fds_AbCd1234", "notified prefix")
	terminate(t, other, pid)
	next(t, pids, "listen after reconnect")
	nextMatching(t, prefixes, "", "resync after reconnect")
}

// terminate ends a server process, as a database restart or a network
// failure would end the connection.
func terminate(t *testing.T, db *postgres.DB, pid uint32) {
	t.Helper()
	if err := postgres.Terminate(context.Background(), db, pid); err != nil {
		t.Fatalf("terminate %d: %v", pid, err)
	}
}

// TestWatchEndsWithContext: a watch whose context ends returns nil.
func TestWatchEndsWithContext(t *testing.T) {
	t.Parallel()
	db := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	called := make(chan struct{}, 1)
	go func() {
		done <- db.WatchKeys(ctx, func(string) {
			select {
			case called <- struct{}{}:
			default:
			}
		})
	}()
	next(t, called, "resync")
	cancel()
	if err := next(t, done, "return"); err != nil {
		t.Fatalf("WatchKeys = %v, want nil", err)
	}
}
