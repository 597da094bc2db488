package fault

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// bigCatalogue is the bundled catalogue (tens of thousands of perfumes):
// its import takes long enough to be killed half-way.
func bigCatalogue() string {
	return filepath.Join(root, "internal", "bundled", "catalogue.jsonl.gz")
}

// TestKillDuringImport: `fragrance import` of a large catalogue is killed
// with SIGKILL at several points of its run, on SQLite and on PostgreSQL.
// Each time the database is intact and holds either the old catalogue or
// the new one, never part of it; the service starts on it and serves
// what it holds, and the import run again succeeds and reaches the
// running service.
func TestKillDuringImport(t *testing.T) {
	needFault(t)
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		db := filepath.Join(dir, "fragrance.db")
		// Two kills are placed by the WAL's growth, so they surely fall
		// while the import writes: reading and checking the file comes
		// first, and takes a good part of the run.
		walPast := func(bytes int64) killPoint {
			return killPoint{fmt.Sprintf("the WAL past %d MB", bytes>>20), func() bool {
				fi, err := os.Stat(db + "-wal")
				return err == nil && fi.Size() > bytes
			}}
		}
		killImports(t, filepath.Join(dir, "reference.db"), db, func(string) {
			integrityOK(t, db)
		}, func(path string) int64 { return perfumeRows(t, path) }, walPast(1<<20), walPast(8<<20))
	})
	t.Run("postgres", func(t *testing.T) {
		pg := needPostgres(t)
		ctx := context.Background()
		watch, err := pgx.Connect(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close(ctx)
		// One kill falls once the import has a write transaction open
		// (it has written rows): nothing else writes to this database
		// while the import runs.
		writing := killPoint{"the import's write transaction open", func() bool {
			var n int
			watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()`).Scan(&n)
			return n > 0
		}}
		killImports(t, freshSchema(t, pg), freshSchema(t, pg), func(string) {},
			func(dsn string) int64 { return pgPerfumeRows(t, dsn) }, writing)
	})
}

// pgPerfumeRows counts the perfumes table of a PostgreSQL schema.
func pgPerfumeRows(t *testing.T, dsn string) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM perfumes").Scan(&n); err != nil {
		t.Fatalf("count perfumes: %v", err)
	}
	return n
}

// killPoint is when to kill an import: once ready holds.
type killPoint struct {
	name  string
	ready func() bool
}

// killImports imports the small catalogue into db, then kills imports of
// the big one at each point (the given ones, then at 50% and 90% of
// a whole import's time) and checks db after each (intact, old or new);
// then it serves db and imports again. ref gets a whole import first,
// timed, to know the new number of perfumes and where "mid-way" is.
func killImports(t *testing.T, ref, db string, intact func(string), rows func(string) int64, points ...killPoint) {
	cli(t, "import", "--db", ref, smallCatalogue())
	oldRows := rows(ref)
	start := time.Now()
	cli(t, "import", "--db", ref, bigCatalogue())
	whole := time.Since(start)
	newRows := rows(ref)
	if newRows <= oldRows {
		t.Fatalf("the big catalogue added nothing: %d then %d perfumes", oldRows, newRows)
	}
	t.Logf("a whole import takes %s: %d perfumes, then %d", whole.Round(10*time.Millisecond), oldRows, newRows)

	cli(t, "import", "--db", db, smallCatalogue())
	for _, frac := range []float64{0.5, 0.9} {
		at := time.Duration(frac * float64(whole))
		var begun time.Time
		points = append(points, killPoint{fmt.Sprintf("%.0f%% of a whole import (%s)", 100*frac, at.Round(time.Millisecond)),
			func() bool { return time.Since(begun) >= at }})
		p := &points[len(points)-1]
		ready := p.ready
		p.ready = func() bool {
			if begun.IsZero() {
				begun = time.Now()
			}
			return ready()
		}
	}
	killed := 0
	for _, p := range points {
		cmd := exec.Command(bin, "import", "--db", db, bigCatalogue())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var ended bool
		for !ended && !p.ready() {
			select {
			case err := <-done:
				t.Logf("%s: the import had already ended (%v)", p.name, err)
				ended = true
			case <-time.After(2 * time.Millisecond):
			}
		}
		if !ended {
			cmd.Process.Kill()
			<-done
			killed++
		}
		intact(db)
		n := rows(db)
		switch n {
		case oldRows:
			t.Logf("killed at %s: the old catalogue, whole", p.name)
		case newRows:
			t.Logf("killed at %s: the import had committed", p.name)
		default:
			t.Fatalf("killed at %s: %d perfumes, neither the old %d nor the new %d", p.name, n, oldRows, newRows)
		}
		if n == newRows {
			break // nothing left to interrupt
		}
	}
	if killed == 0 {
		t.Fatal("no import was killed while it ran")
	}
	have := rows(db)
	svc := startService(t, "--db", db, "--reload-every", "1s")
	key, _ := unlimitedKey(t, db)
	if code, h := getJSON(svc.base+"/healthz", ""); code != http.StatusOK || h["perfumes"] != float64(have) {
		t.Errorf("serve after the kills: healthz %d %v, want %d perfumes", code, h, have)
	}
	if code, body := getJSON(svc.base+"/api/perfumes/dior-sauvage", key); code != http.StatusOK {
		t.Errorf("serve after the kills: %d %v", code, body)
	}
	out := cli(t, "import", "--db", db, bigCatalogue())
	t.Logf("re-import: %s", strings.TrimSpace(out))
	intact(db)
	if n := rows(db); n != newRows {
		t.Errorf("after the re-import: %d perfumes, want %d", n, newRows)
	}
	waitFor(t, "the running service to load the re-imported catalogue", 20*time.Second, func() bool {
		_, h := getJSON(svc.base+"/healthz", "")
		return h["perfumes"] == float64(newRows)
	})
	svc.stop()
}

// TestKillDuringFlush: the service is killed with SIGKILL under load at
// the moment a usage flush is due (aimed from the previous flush's end,
// seen to within ~10 ms on /metrics), on SQLite three times and on
// PostgreSQL twice, restarted on the same database
// each time. No more than the flush interval's admitted requests are
// lost, none is counted twice, and the database is intact.
func TestKillDuringFlush(t *testing.T) {
	needFault(t)
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "fragrance.db")
		killFlushes(t, db, func() { integrityOK(t, db) },
			[]time.Duration{-15 * time.Millisecond, -8 * time.Millisecond, -2 * time.Millisecond})
	})
	t.Run("postgres", func(t *testing.T) {
		db := freshSchema(t, needPostgres(t))
		killFlushes(t, db, func() {}, []time.Duration{-10 * time.Millisecond, -3 * time.Millisecond})
	})
}

// killFlushes kills a service on db under load once per offset from the
// moment a flush is due, restarting it each time, and checks what was
// lost; intact checks the database after each kill.
func killFlushes(t *testing.T, db string, intact func(), offsets []time.Duration) {
	key, prefix := unlimitedKey(t, db)
	var admittedAll, lostAll int64
	for round, offset := range offsets {
		svc := startService(t, "--db", db)
		before := counted2xx(t, db, prefix)
		l := startLoad(svc.base, key, 4, time.Millisecond)
		// A flush has just finished when its counter moves; the next one
		// starts a flush interval after it began.
		ok0 := metric(t, svc.base, flushOK)
		var flushedAt time.Time
		for deadline := time.Now().Add(3 * flushInterval); flushedAt.IsZero(); time.Sleep(5 * time.Millisecond) {
			if metric(t, svc.base, flushOK) > ok0 {
				flushedAt = time.Now()
			}
			if time.Now().After(deadline) {
				t.Fatalf("no usage flush in %s", 3*flushInterval)
			}
		}
		time.Sleep(time.Until(flushedAt.Add(flushInterval + offset)))
		svc.kill()
		killedAt := time.Now()
		l.stop()
		as := l.snapshot()
		adm := admitted(as)
		counted := counted2xx(t, db, prefix) - before
		var recent int64 // admitted in the last flush interval (and a second) before the kill
		for _, a := range as {
			if a.status >= 200 && a.status < 300 && a.at.After(killedAt.Add(-flushInterval-time.Second)) {
				recent++
			}
		}
		t.Logf("round %d: killed %s after a flush's end; %d admitted, %d counted, %d lost; %d admitted in the last %s",
			round, killedAt.Sub(flushedAt).Round(time.Millisecond), adm, counted, adm-counted, recent, flushInterval+time.Second)
		if counted > adm {
			t.Errorf("round %d: %d counted, more than the %d admitted", round, counted, adm)
		}
		if adm-counted > recent {
			t.Errorf("round %d: %d lost, more than the %d admitted in the last flush interval", round, adm-counted, recent)
		}
		if adm < 100 {
			t.Errorf("round %d: only %d admitted: the load did not run", round, adm)
		}
		admittedAll += adm
		lostAll += adm - counted
		intact()
	}
	// A restart on the killed database serves and counts again.
	svc := startService(t, "--db", db)
	before := counted2xx(t, db, prefix)
	for i := 0; i < 10; i++ {
		if code, body := getJSON(svc.base+"/api/perfumes?limit=1", key); code != http.StatusOK {
			t.Fatalf("after the kills: %d %v", code, body)
		}
	}
	svc.stop()
	if got := counted2xx(t, db, prefix) - before; got != 10 {
		t.Errorf("after the kills a clean run counted %d of 10", got)
	}
	intact()
	t.Logf("in all: %d admitted, %s lost to kill -9", admittedAll, strconv.FormatInt(lostAll, 10)+fmt.Sprintf(" (%.1f%%)", 100*float64(lostAll)/float64(max(admittedAll, 1))))
}
