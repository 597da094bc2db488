package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportGenerated imports a generated catalogue, then the same file
// again (all unchanged), through the command line.
func TestImportGenerated(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gen.jsonl.gz")
	db := filepath.Join(dir, "f.db")
	n := "3000" // the 100,000-row figure is BenchmarkImport100k's
	runCmd(t, "generate", "--count", n, "--seed", "7", "--out", file)
	out := runCmd(t, "import", "--db", db, file)
	if !strings.Contains(out, n+" added, 0 updated, 0 unchanged, 0 rejected") {
		t.Fatalf("first import: %q", out)
	}
	out = runCmd(t, "import", "--db", db, file)
	if !strings.Contains(out, "0 added, 0 updated, "+n+" unchanged, 0 rejected") {
		t.Fatalf("second import: %q", out)
	}
}

// TestImportBrokenRows reports each malformed row with file and line and
// imports the rest.
func TestImportBrokenRows(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "broken.jsonl")
	rows := []string{
		`{"fragranticaId":1,"name":"Good One","brand":"Dior","gender":"masculine","ratingCount":5,"accords":[],"notes":{"top":[],"middle":[],"base":[]},"seasons":{"winter":0.25,"spring":0.25,"summer":0.25,"fall":0.25},"dayNight":{"day":0.5,"night":0.5}}`,
		`{"fragranticaId":2,"name":`,
		`{"fragranticaId":3,"brand":"Dior","gender":"masculine"}`,
		`not json at all`,
		`{"fragranticaId":5,"name":"Good Two","brand":"Chanel","gender":"feminine","ratingCount":9,"accords":[],"notes":{"top":[],"middle":[],"base":[]},"seasons":{"winter":0.25,"spring":0.25,"summer":0.25,"fall":0.25},"dayNight":{"day":0.5,"night":0.5}}`,
	}
	if err := os.WriteFile(file, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"import", "--db", filepath.Join(dir, "f.db"), file}, noEnv, strings.NewReader(""), &out, &errb)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errb.String())
	}
	for _, line := range []string{"broken.jsonl:2:", "broken.jsonl:3:", "broken.jsonl:4:"} {
		if !strings.Contains(errb.String(), line) {
			t.Errorf("no rejection for %s in:\n%s", line, errb.String())
		}
	}
	if !strings.Contains(out.String(), "2 added, 0 updated, 0 unchanged, 3 rejected") {
		t.Errorf("summary: %q", out.String())
	}
	// --strict imports nothing.
	err = run(context.Background(), []string{"import", "--strict", "--db", filepath.Join(dir, "g.db"), file}, noEnv, strings.NewReader(""), &out, &errb)
	if err == nil {
		t.Error("--strict accepted rejected rows")
	}
}

// TestImportFragDB imports the FragDB sample dataset (the fixture folder).
func TestImportFragDB(t *testing.T) {
	out := runCmd(t, "import", "--db", filepath.Join(t.TempDir(), "f.db"), "../../internal/importer/testdata/fragdb")
	if !strings.Contains(out, "10 added") {
		t.Errorf("FragDB import: %q", out)
	}
}

// TestImportWhileServing: an import into the database of a running server
// is picked up and swapped in.
func TestImportWhileServing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	base, _ := startServe(t, noEnv, "--db", db, "--reload-every", "100ms")
	_, before := getJSON(t, base+"/healthz")
	file := filepath.Join(dir, "new.jsonl")
	generateFile(t, file, 50, 1)
	runCmd(t, "import", "--db", db, file)
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, after := getJSON(t, base+"/healthz")
		if after["perfumes"].(float64) > before["perfumes"].(float64) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("import not picked up: before %v after %v", before["perfumes"], after["perfumes"])
		}
		time.Sleep(100 * time.Millisecond)
	}
}
