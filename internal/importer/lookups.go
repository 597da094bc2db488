package importer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// lookup maps FragDB ids of one kind (a24, n54, b72, p39) to names and
// counts the ids it could not resolve.
type lookup struct {
	file    string
	kind    string
	byID    map[string]string
	missing bool // the file is not there
	misses  int
}

// name resolves id, or returns "" and counts a miss.
func (l *lookup) name(id string) string {
	if n, ok := l.byID[id]; ok {
		return n
	}
	l.misses++
	return ""
}

// names resolves ids, leaving out those it cannot.
func (l *lookup) names(ids []string) []string {
	var out []string
	for _, id := range ids {
		if n := l.name(id); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// lookups are the four FragDB lookup files of one dataset. They are used
// by one reader at a time: name resolution counts misses.
type lookups struct {
	accords, notes, brands, perfumers *lookup
}

// loadLookups reads the lookup files in dir. A missing file is not an
// error: its ids stay unresolved and a warning says so.
func loadLookups(dir string) (*lookups, []string, error) {
	lk := &lookups{}
	var warnings []string
	for _, it := range []struct {
		dst        **lookup
		file, kind string
	}{
		{&lk.accords, fragdbAccords, "accord"},
		{&lk.notes, fragdbNotes, "note"},
		{&lk.brands, fragdbBrands, "brand"},
		{&lk.perfumers, fragdbPerfumers, "perfumer"},
	} {
		l, err := loadLookup(filepath.Join(dir, it.file), it.kind)
		if err != nil {
			return nil, nil, err
		}
		if l.missing {
			warnings = append(warnings, fmt.Sprintf("%s not found beside %s: %s ids left unresolved", it.file, fragdbMain, it.kind))
		}
		*it.dst = l
	}
	return lk, warnings, nil
}

func loadLookup(path, kind string) (*lookup, error) {
	l := &lookup{file: filepath.Base(path), kind: kind, byID: map[string]string{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		l.missing = true
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read FragDB lookup: %w", err)
	}
	defer f.Close()
	cr := newPipeReader(f)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read %s header: %w", path, err)
	}
	idCol, nameCol := -1, -1
	for i, h := range header {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")) {
		case "id":
			idCol = i
		case "name":
			nameCol = i
		}
	}
	if idCol < 0 || nameCol < 0 {
		return nil, fmt.Errorf("read %s: want columns id and name", path)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return l, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if idCol < len(rec) && nameCol < len(rec) {
			if id, name := strings.TrimSpace(rec[idCol]), cleanText(rec[nameCol]); id != "" && name != "" {
				l.byID[id] = name
			}
		}
	}
}

// brandName reads the brand field "Dolce&Gabbana;b72": the inline name,
// or the name brands.csv gives the id when the field has none.
func (lk *lookups) brandName(field string) string {
	refs := parseNamedRefs(field, 'b')
	if len(refs) == 0 {
		return ""
	}
	if refs[0].Name != "" {
		return refs[0].Name
	}
	return lk.brands.name(refs[0].ID)
}

// perfumerNames reads "Olivier Cresp;p39;Laurent Bruyere;p48", resolving a
// bare id through perfumers.csv. It returns nil for an empty field, so
// "unknown" and "none" are not told apart (FragDB does not either).
func (lk *lookups) perfumerNames(field string) []string {
	var out []string
	for _, r := range parseNamedRefs(field, 'p') {
		name := r.Name
		if name == "" {
			name = lk.perfumers.name(r.ID)
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

// unresolvedWarnings reports ids that a present lookup file lacked.
func (lk *lookups) unresolvedWarnings() []string {
	var out []string
	for _, l := range []*lookup{lk.accords, lk.notes, lk.brands, lk.perfumers} {
		if l.misses > 0 && !l.missing {
			out = append(out, fmt.Sprintf("%s: %d %s ids not found, left out", l.file, l.misses, l.kind))
		} else if l.misses > 0 {
			out = append(out, fmt.Sprintf("%d %s ids left out (no %s)", l.misses, l.kind, l.file))
		}
	}
	return out
}
