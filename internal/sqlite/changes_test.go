package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestChangesMigrationNumbersExistingRows: migration 0009 over a catalogue
// stored before it numbers the rows in id order and starts the sequence
// after them, so a feed walked from the beginning returns each once.
func TestChangesMigrationNumbersExistingRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, f := range []string{"migrations/0001_catalogue.sql", "migrations/0009_changes.sql"} {
		if f == "migrations/0009_changes.sql" {
			for _, id := range []int{30, 10, 20} {
				if _, err := raw.ExecContext(ctx, `INSERT INTO perfumes (id, slug, data, updated_at) VALUES (?, ?, '{}', 0)`,
					id, "p"+string(rune('a'+id/10))); err != nil {
					t.Fatal(err)
				}
			}
		}
		b, err := migrationFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.ExecContext(ctx, string(b)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	rows, err := raw.QueryContext(ctx, `SELECT id, seq FROM perfumes ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := int64(1)
	for rows.Next() {
		var id, seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			t.Fatal(err)
		}
		if seq != want {
			t.Errorf("perfume %d: seq %d, want %d", id, seq, want)
		}
		want++
	}
	var last int64
	if err := raw.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'change_seq'`).Scan(&last); err != nil || last != 3 {
		t.Fatalf("change_seq = %d, %v; want 3", last, err)
	}
}
