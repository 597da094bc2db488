package main

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

func TestScratchScan(t *testing.T) {
	path := os.Getenv("SCRATCH_DB")
	if path == "" {
		t.Skip()
	}
	for _, pragma := range []string{"", "&_pragma=mmap_size(1073741824)"} {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)"+pragma)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		rows, err := db.QueryContext(context.Background(), `SELECT slug, data FROM perfumes ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		n, total := 0, 0
		for rows.Next() {
			var slug, data sql.RawBytes
			rows.Scan(&slug, &data)
			n++
			total += len(data)
		}
		rows.Close()
		t.Logf("pragma %q: %d rows %d MB in %v", pragma, n, total>>20, time.Since(t0))
		db.Close()
	}
}
