// Package migrate reads a store's versioned schema migrations: SQL files
// named NUMBER_description.sql in one directory of an embedded file system.
// Each backend applies them in its own dialect and with its own locking;
// what they share is how the files are found and ordered.
package migrate

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Migration is one schema step.
type Migration struct {
	Version int
	Name    string // the file name, e.g. 0002_access.sql
	SQL     string
}

// List returns the migrations in dir of fsys, in version order. A file
// whose name does not start with a number and "_" is an error, as are two
// files of one version.
func List(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %q: name must start with a number and _", e.Name())
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(body)})
	}
	slices.SortFunc(out, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %q and %q have the same version", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}
