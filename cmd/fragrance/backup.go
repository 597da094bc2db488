package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

func runBackup(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("backup", "backup --db PATH --out FILE [--force]\n\n"+
		"Copies a SQLite database to FILE while servers keep using it (one consistent snapshot,\n"+
		"SQLite's VACUUM INTO), checks the copy (integrity_check, every table counted) and prints\n"+
		"what it holds. Restore by stopping the servers and putting FILE in place of the database\n"+
		"(or serving it: serve --db FILE). Image files live beside the database (--image-dir):\n"+
		"copy that folder too. A PostgreSQL database is backed up with pg_dump (see docs/running-safely.md).", cio)
	dsn := f.DB()
	out := f.String("out", "", "the backup file to write")
	force := f.Bool("force", false, "replace FILE if it exists")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() > 0 || *out == "" {
		if *out == "" {
			fmt.Fprintln(cio.stderr, "fragrance backup: --out FILE is required")
		}
		f.Usage()
		return errUsage
	}
	if isPostgres(*dsn) {
		return fmt.Errorf("backup copies SQLite files; back up PostgreSQL with pg_dump:\n"+
			"  pg_dump --format=custom --file=fragrance.dump '%s'\n"+
			"and restore into an empty database with:\n"+
			"  pg_restore --no-owner --dbname='%s' fragrance.dump", redactDSN(*dsn), redactDSN(*dsn))
	}
	if err := sqliteExists(*dsn); err != nil {
		return err
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return fmt.Errorf("%s exists; pass --force to replace it", *out)
	}
	if same(*dsn, *out) {
		return fmt.Errorf("--out %s is the database itself", *out)
	}
	// Written beside the target, then moved into place: a failed or
	// interrupted backup never leaves a partial FILE, nor removes an old one.
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".partial-*")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmp.Close()
	os.Remove(tmp.Name()) // VACUUM INTO wants a new file; the name is ours
	defer os.Remove(tmp.Name())
	rep, err := sqlite.Backup(ctx, *dsn, tmp.Name())
	if err != nil {
		return err
	}
	if *force {
		err = os.Rename(tmp.Name(), *out)
	} else {
		err = os.Link(tmp.Name(), *out) // fails, rather than replaces, if FILE appeared meanwhile
	}
	if err != nil {
		return fmt.Errorf("backup: put %s in place: %w", *out, err)
	}
	printBackup(cio, *out, rep, imgfiles.DefaultDir(*dsn))
	return nil
}

// same reports whether two paths name the same existing file.
func same(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// printBackup writes what the backup holds, read back from the copy.
func printBackup(cio cmdIO, out string, rep sqlite.BackupReport, imageDir string) {
	fmt.Fprintf(cio.stdout, "wrote %s: %d bytes, schema version %d, integrity ok\n", out, rep.Bytes, rep.SchemaVersion)
	names := make([]string, 0, len(rep.Rows))
	for t := range rep.Rows {
		names = append(names, t)
	}
	sort.Strings(names)
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, t := range names {
		fmt.Fprintf(w, "  %s\t%d\t\n", t, rep.Rows[t])
	}
	w.Flush()
	if _, err := os.Stat(imageDir); err == nil {
		fmt.Fprintf(cio.stderr, "note: image files are in %s, outside the database: copy that folder too\n", imageDir)
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(cio.stderr, "note: image folder %s: %v\n", imageDir, err)
	}
}
