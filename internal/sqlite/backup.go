package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// BackupReport is what Backup wrote, read back from the copy.
type BackupReport struct {
	// Bytes is the size of the copy.
	Bytes int64
	// SchemaVersion is the copy's schema version.
	SchemaVersion int
	// Rows counts the rows of each table of the copy, by table name.
	Rows map[string]int64
}

// Backup copies the database at src to a new file at dst with VACUUM INTO,
// which reads one transaction's snapshot: the copy is consistent while
// servers keep writing (they wait at most a moment for the copy's read).
// src is neither created nor migrated. The copy is then verified: opened,
// PRAGMA integrity_check, and every table counted. dst must not exist; on
// any failure it is removed.
func Backup(ctx context.Context, src, dst string) (BackupReport, error) {
	var rep BackupReport
	if _, err := os.Stat(src); err != nil {
		return rep, fmt.Errorf("sqlite: backup %s: %w", src, err)
	}
	if _, err := os.Stat(dst); err == nil {
		return rep, fmt.Errorf("sqlite: backup to %s: %w", dst, os.ErrExist)
	}
	db, err := openPlain(src)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		os.Remove(dst)
		return rep, fmt.Errorf("sqlite: backup %s to %s: %w", src, dst, err)
	}
	rep, err = verifyCopy(ctx, dst)
	if err != nil {
		os.Remove(dst)
		return rep, err
	}
	return rep, nil
}

// openPlain opens an existing database file without creating or migrating
// it (mode=rw: a missing file is an error, not a new database).
func openPlain(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("mode", "rw")
	q.Add("_pragma", "busy_timeout(10000)")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// verifyCopy checks a backup file and counts what it holds.
func verifyCopy(ctx context.Context, path string) (BackupReport, error) {
	rep := BackupReport{Rows: map[string]int64{}}
	st, err := os.Stat(path)
	if err != nil {
		return rep, fmt.Errorf("sqlite: backup %s was not written: %w", path, err)
	}
	rep.Bytes = st.Size()
	db, err := openPlain(path)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil {
		return rep, fmt.Errorf("sqlite: check backup %s: %w", path, err)
	}
	if check != "ok" {
		return rep, fmt.Errorf("sqlite: backup %s fails its integrity check: %s", path, check)
	}
	d := &DB{db: db}
	if rep.SchemaVersion, err = d.SchemaVersion(ctx); err != nil {
		return rep, fmt.Errorf("sqlite: backup %s: %w", path, err)
	}
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return rep, fmt.Errorf("sqlite: backup %s: list tables: %w", path, err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return rep, err
		}
		tables = append(tables, name)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return rep, fmt.Errorf("sqlite: backup %s: list tables: %w", path, err)
	}
	for _, t := range tables {
		var n int64
		// The names come from sqlite_master of the copy; quoted all the same.
		q := `SELECT count(*) FROM "` + strings.ReplaceAll(t, `"`, `""`) + `"`
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return rep, fmt.Errorf("sqlite: backup %s: count %s: %w", path, t, err)
		}
		rep.Rows[t] = n
	}
	return rep, nil
}
