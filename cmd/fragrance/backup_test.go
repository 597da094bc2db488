package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestBackupUnderWritesAndRestore backs a database up while usage flushes
// keep writing to it, then serves the copy: every key answers and its usage
// is what the copy holds. Each flush adds one request to two keys in one
// transaction, so a consistent snapshot holds equal counts for both.
func TestBackupUnderWritesAndRestore(t *testing.T) {
	ctx := context.Background()
	db := newDB(t, "live.db")
	var keys []string
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		keys = append(keys, lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "pro", "--email", email)))
	}
	pkA, _ := apikey.ParseKey(keys[0])
	pkB, _ := apikey.ParseKey(keys[1])

	writer, err := openExistingStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	var flushed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			hour := time.Now().UTC().Truncate(time.Hour)
			err := writer.RecordUsage(ctx, usage.Batch{Hourly: []usage.Count{
				{KeyPrefix: pkA.Prefix, Endpoint: "perfumes", StatusClass: "2xx", Start: hour, Count: 1},
				{KeyPrefix: pkB.Prefix, Endpoint: "perfumes", StatusClass: "2xx", Start: hour, Count: 1},
			}})
			if err != nil {
				t.Error(err)
				return
			}
			flushed.Add(1)
		}
	}()
	for flushed.Load() < 20 { // the writes are under way
		time.Sleep(5 * time.Millisecond)
	}
	before := flushed.Load()
	out := filepath.Join(t.TempDir(), "backup.db")
	report := runCmd(t, "backup", "--db", db, "--out", out)
	after := flushed.Load()
	for flushed.Load() < after+5 { // and went on while it ran
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for _, want := range []string{"wrote " + out, "integrity ok", "api_keys", "usage_hourly"} {
		if !strings.Contains(report, want) {
			t.Errorf("backup report lacks %q:\n%s", want, report)
		}
	}

	copyStore, err := openExistingStore(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	repA, errA := meter.BuildReport(ctx, copyStore, pkA.Prefix, time.Now(), 1, nil)
	repB, errB := meter.BuildReport(ctx, copyStore, pkB.Prefix, time.Now(), 1, nil)
	listed, errL := copyStore.ListKeys(ctx)
	copyStore.Close()
	if errA != nil || errB != nil || errL != nil {
		t.Fatal(errA, errB, errL)
	}
	if repA.Total != repB.Total || repA.Total < before || repA.Total > flushed.Load() {
		t.Fatalf("the copy holds %d and %d flushes of two keys written together; %d were written before the backup began, %d in all",
			repA.Total, repB.Total, before, flushed.Load())
	}
	if len(listed) != len(keys) {
		t.Fatalf("the copy holds %d keys, want %d", len(listed), len(keys))
	}

	// Restored: serve the copy.
	base, _ := startServe(t, noEnv, "--db", out)
	for i, key := range keys {
		code, body := getJSON(t, base+"/api/usage?days=1", "X-API-Key", key)
		if code != 200 {
			t.Fatalf("key %d on the restored database: %d %v", i, code, body)
		}
		total := body["usage"].(map[string]any)["total"].(float64)
		want := map[int]int64{0: repA.Total, 1: repB.Total, 2: 0}[i]
		if int64(total) != want {
			t.Errorf("key %d: usage total %v on the restored database, want %d", i, total, want)
		}
	}
}

// TestBackupRefuses: no overwrite without --force, never the database
// itself, and PostgreSQL is pointed to pg_dump.
func TestBackupRefuses(t *testing.T) {
	db := newDB(t, "src.db")
	out := filepath.Join(t.TempDir(), "exists.db")
	if err := os.WriteFile(out, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err, _, _ := runArgs("backup", "--db", db, "--out", out); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("backup over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Errorf("the existing file was changed")
	}
	if err, _, _ := runArgs("backup", "--db", db, "--out", db, "--force"); err == nil {
		t.Errorf("backup onto the database itself was accepted")
	}
	if err, stdout, _ := runArgs("backup", "--db", db, "--out", out, "--force"); err != nil || !strings.Contains(stdout, "integrity ok") {
		t.Errorf("backup --force: %v %s", err, stdout)
	}
	err, _, _ := runArgs("backup", "--db", "postgres://u:secretpw@db/x", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "pg_dump") || !strings.Contains(err.Error(), "pg_restore") || strings.Contains(err.Error(), "secretpw") {
		t.Errorf("backup of PostgreSQL: %v", err)
	}
	if err, _, _ := runArgs("backup", "--db", db); exitCode(err) != 2 {
		t.Errorf("backup without --out: %v", err)
	}
}
