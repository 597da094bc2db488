package main

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFileReportsTheFooter: a gzip file whose footer cannot be
// written (a full disk, here /dev/full) is an error, not a success, and
// a file whose writer failed is not left behind.
func TestWriteFileReportsTheFooter(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl.gz")
	if err := os.Symlink("/dev/full", full); err != nil {
		t.Fatal(err)
	}
	err := writeFile(full, func(w io.Writer) error {
		_, err := w.Write([]byte("a few bytes gzip keeps in its buffer until Close\n"))
		return err
	})
	if err == nil {
		t.Fatal("writing to a full disk reported success")
	}
	failing := filepath.Join(dir, "failed.jsonl")
	if err := writeFile(failing, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("a failed write reported success")
	}
	if _, err := os.Stat(failing); !os.IsNotExist(err) {
		t.Errorf("the failed file was left behind: %v", err)
	}
	ok := filepath.Join(dir, "ok.jsonl.gz")
	if err := writeFile(ok, func(w io.Writer) error { _, err := w.Write([]byte("{}\n")); return err }); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(ok)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || string(b) != "{}\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
}
