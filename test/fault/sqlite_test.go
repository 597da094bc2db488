package fault

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSQLiteNotWritable: another process holds SQLite's write lock (what a
// long `sqlite3` session, a copy tool or a stuck writer does) for longer
// than the service's busy timeout, under load. Reads keep working (API
// answers, a key never seen before is looked up and admitted), usage
// flushes fail and are logged and kept, and once the lock is gone the
// counts arrive without a restart.
//
// Why a lock and not chmod: the suite runs as root, which file modes do
// not stop, and a file already open for writing stays writable whatever
// its mode; a file system holding a file open for writing cannot be
// remounted read-only (EBUSY). A lock is the way a live SQLite database
// stops taking writes while it keeps being read.
func TestSQLiteNotWritable(t *testing.T) {
	needFault(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "fragrance.db")
	keyE, prefixE := unlimitedKey(t, db)
	keyNew, prefixNew := unlimitedKey(t, db) // first used while the lock is held
	svc := startService(t, "--db", db)
	l := startLoad(svc.base, keyE, 3, 2*time.Millisecond)
	time.Sleep(time.Second)

	locker := openSQLite(t, db)
	ctx := context.Background()
	conn, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	lockedAt := time.Now()
	errorsBefore := metric(t, svc.base, flushError)
	newServed := int64(0)
	waitFor(t, "a usage flush to fail while the database cannot be written", 25*time.Second, func() bool {
		if code, body := getJSON(svc.base+"/api/perfumes/dior-sauvage", keyNew); code != http.StatusOK {
			t.Errorf("locked: a key not yet cached answered %d %v; reads must keep working", code, body)
		} else {
			newServed++
		}
		time.Sleep(400 * time.Millisecond)
		return metric(t, svc.base, flushError) > errorsBefore
	})
	if h := health(t, svc.base); h["status"] != "200" {
		t.Errorf("locked: healthz %v", h)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	releasedAt := time.Now()
	time.Sleep(time.Second)
	l.stop()
	as := l.snapshot()
	t.Logf("write lock held %s; key E while locked %s, after %s; failed flushes %v; the key first seen while locked served %d times",
		releasedAt.Sub(lockedAt).Round(100*time.Millisecond), byStatus(as, lockedAt, releasedAt), byStatus(as, releasedAt, time.Now()),
		metric(t, svc.base, flushError)-errorsBefore, newServed)
	noFailuresAfter(t, as, time.Time{}, "key E (reads only, the lock never stops them)")
	if !strings.Contains(svc.stderr.String(), "flush failed") {
		t.Error("no log line says the usage flush failed")
	}
	lag := waitCounted(t, db, prefixE, admitted(as))
	waitCounted(t, db, prefixNew, newServed)
	t.Logf("every admitted request counted %s after the load, no restart", lag.Round(100*time.Millisecond))
	svc.stop()
	integrityOK(t, db)
}

// mountTmpfs mounts a tmpfs of size (e.g. "40m") on a new directory and
// unmounts it when the test ends; it skips, saying why, where mounting is
// not permitted.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the disk-full fault mounts a small tmpfs, which needs root")
	}
	dir := filepath.Join(t.TempDir(), "small-disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs is not permitted here (%v: %s): the disk-full fault needs it", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// fill writes a file in dir until the file system is full; it returns the
// file's path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	for _, n := range []int{4096, 512, 1} { // the last partial pages
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
	return path
}

// TestDiskFull: the SQLite database lives on a small file system that
// fills up under load. The service keeps serving (reads, keys looked up
// for the first time), usage flushes fail and are retried, and once space
// is freed the counts arrive without a restart; the database is intact.
func TestDiskFull(t *testing.T) {
	needFault(t)
	disk := mountTmpfs(t, "48m")
	db := filepath.Join(disk, "fragrance.db")
	keyE, prefixE := unlimitedKey(t, db)
	keyNew, prefixNew := unlimitedKey(t, db)
	svc := startService(t, "--db", db)
	l := startLoad(svc.base, keyE, 3, 2*time.Millisecond)
	time.Sleep(time.Second)

	// An empty WAL, so the next write must take new space (a WAL keeps
	// its pages for reuse, and writes into them would not notice the
	// full disk).
	own := openSQLite(t, db)
	waitFor(t, "the WAL to be checkpointed and truncated", 15*time.Second, func() bool {
		var busy, logFrames, done int
		err := own.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
		return err == nil && busy == 0
	})
	filler := fill(t, disk)
	fullAt := time.Now()
	errorsBefore := metric(t, svc.base, flushError)
	newServed := int64(0)
	waitFor(t, "a usage flush to fail on the full disk", 25*time.Second, func() bool {
		if code, body := getJSON(svc.base+"/api/perfumes?limit=2", keyNew); code != http.StatusOK {
			t.Errorf("disk full: a key not yet cached answered %d %v", code, body)
		} else {
			newServed++
		}
		time.Sleep(400 * time.Millisecond)
		return metric(t, svc.base, flushError) > errorsBefore
	})
	time.Sleep(flushInterval) // a retry on the full disk too
	if h := health(t, svc.base); h["status"] != "200" {
		t.Errorf("disk full: healthz %v", h)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freedAt := time.Now()
	time.Sleep(time.Second)
	l.stop()
	as := l.snapshot()
	t.Logf("disk full for %s; key E while full %s, after %s; failed flushes %v",
		freedAt.Sub(fullAt).Round(100*time.Millisecond), byStatus(as, fullAt, freedAt), byStatus(as, freedAt, time.Now()),
		metric(t, svc.base, flushError)-errorsBefore)
	noFailuresAfter(t, as, time.Time{}, "key E with the disk full")
	lag := waitCounted(t, db, prefixE, admitted(as))
	waitCounted(t, db, prefixNew, newServed)
	t.Logf("every admitted request counted %s after the space came back, no restart", lag.Round(100*time.Millisecond))
	integrityOK(t, db)
	svc.stop()
	integrityOK(t, db)
}
