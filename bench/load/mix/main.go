// Command mix writes the request sequences of the load benchmark's cold and
// zipf mixes (bench/load/run.sh --mix), one file per endpoint class.
//
// The answer cache makes repeated requests cheap, so a benchmark that asks
// for the same 200 perfumes again and again measures the cache, not the
// service. Real traffic is a long tail the cache cannot hold:
//
//   - cold: every path of a class distinct, in a seeded random order: a
//     uniform sample of the whole catalogue for the perfume endpoints, and
//     sets of as many distinct searches, match profiles and list pages,
//     made from the catalogue. Run with the answer cache off, every answer
//     is computed.
//   - zipf: a sequence of --requests paths drawn from a Zipf distribution
//     (exponent --zipf-s): over all perfumes ranked most rated first for the
//     perfume endpoints, over the cold mix's sets (in their order) for
//     search, match and list pages (ranked page first). The shape of real
//     traffic: a few hot answers, a long tail of rare ones.
//
// For each class it writes DIR/CLASS.seq (the sequence wrk walks, one path a
// line) and DIR/CLASS.paths (its distinct paths, the answers to record).
// The same inputs and seed give the same files.
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

// config is what the command line says.
type config struct {
	mix       string
	classes   []string
	catalogue string
	accords   string
	notes     string
	queries   string
	distinct  int
	requests  int
	zipfS     float64
	seed      uint64
	dir       string
}

func run(args []string) error {
	var c config
	fs := flag.NewFlagSet("mix", flag.ContinueOnError)
	fs.StringVar(&c.mix, "mix", "cold", "cold (every path distinct) or zipf (Zipf-distributed over the catalogue)")
	classes := fs.String("classes", "detail list search similar dupes match brands notes page", "endpoint classes, separated by spaces")
	fs.StringVar(&c.catalogue, "catalogue", "", "the catalogue as `fragrance export --format csv` writes it (required)")
	fs.StringVar(&c.accords, "accords", "", "GET /api/accords?limit=20 (JSON): the accords match pairs (required for match)")
	fs.StringVar(&c.notes, "notes", "", "GET /api/notes?limit=10 (JSON): the notes match adds (required for match)")
	fs.StringVar(&c.queries, "queries", "", "more search queries, one a line (bench/load/queries.txt)")
	fs.IntVar(&c.distinct, "distinct", 20000, "distinct paths per class of the cold mix (fewer when the catalogue has fewer perfumes); the size of the search, match and list sets of both mixes")
	fs.IntVar(&c.requests, "requests", 100000, "length of each zipf sequence")
	fs.Float64Var(&c.zipfS, "zipf-s", 1.0, "exponent of the Zipf distribution (rank k drawn with weight 1/k^s)")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed; the same seed and inputs give the same files")
	fs.StringVar(&c.dir, "dir", "", "directory to write CLASS.seq and CLASS.paths into (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.classes = strings.Fields(*classes)
	switch {
	case c.mix != "cold" && c.mix != "zipf":
		return fmt.Errorf("--mix must be cold or zipf, not %q", c.mix)
	case c.catalogue == "" || c.dir == "":
		return errors.New("--catalogue and --dir are required")
	case c.distinct < 1 || c.requests < 1:
		return errors.New("--distinct and --requests must be positive")
	case c.zipfS <= 0:
		return errors.New("--zipf-s must be positive")
	}
	in, err := readInputs(c)
	if err != nil {
		return err
	}
	sets := newSets(in, c.distinct, c.seed)
	for _, class := range c.classes {
		seq, err := sequence(sets, c, class)
		if err != nil {
			return err
		}
		if err := write(filepath.Join(c.dir, class), seq); err != nil {
			return err
		}
	}
	return nil
}

// inputs are what the sets are made from.
type inputs struct {
	perfumes []perfume // most rated first
	accords  []string  // commonest first
	notes    []string  // commonest first
	queries  []string
}

func readInputs(c config) (inputs, error) {
	var in inputs
	var err error
	if in.perfumes, err = readCatalogue(c.catalogue); err != nil {
		return in, err
	}
	if len(in.perfumes) == 0 {
		return in, fmt.Errorf("%s: no perfumes", c.catalogue)
	}
	if c.accords != "" {
		if in.accords, err = readNames(c.accords); err != nil {
			return in, err
		}
	}
	if c.notes != "" {
		if in.notes, err = readNames(c.notes); err != nil {
			return in, err
		}
	}
	if c.queries != "" {
		b, err := os.ReadFile(c.queries)
		if err != nil {
			return in, err
		}
		for l := range strings.Lines(string(b)) {
			if q := strings.TrimSpace(l); q != "" {
				in.queries = append(in.queries, q)
			}
		}
	}
	for _, class := range c.classes {
		if class == "match" && (len(in.accords) < 2 || len(in.notes) == 0) {
			return in, errors.New("match needs --accords (two or more) and --notes")
		}
	}
	return in, nil
}

// readCatalogue reads the columns it needs of an export in CSV, skipping
// deleted perfumes, and ranks them most rated first.
func readCatalogue(name string) ([]perfume, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, want := range []string{"slug", "deleted", "name", "brand", "rating_count"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s: no column %q (want fragrance export --format csv)", name, want)
		}
	}
	var ps []perfume
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if rec[col["deleted"]] == "true" {
			continue
		}
		n, _ := strconv.Atoi(rec[col["rating_count"]]) // empty: never rated
		// Clones: the fields share the whole line's memory, accords and all.
		name := strings.Clone(rec[col["name"]])
		ps = append(ps, perfume{slug: strings.Clone(rec[col["slug"]]), name: name,
			brand: strings.Clone(rec[col["brand"]]), lower: strings.ToLower(name), ratings: n})
	}
	rankByRatings(ps)
	return ps, nil
}

// readNames reads the names of a {"data":[{"name":...}]} answer, in order.
func readNames(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	names := make([]string, 0, len(doc.Data))
	for _, d := range doc.Data {
		names = append(names, d.Name)
	}
	return names, nil
}

// sequence is the class's request sequence in the configured mix.
func sequence(s *sets, c config, class string) ([]string, error) {
	set, n, ranked, err := s.forClass(class)
	if err != nil {
		return nil, err
	}
	if c.mix == "cold" || n == 1 {
		return set, nil
	}
	// Draw ranks, then make each drawn path once.
	z := newZipf(n, c.zipfS, c.seed, class)
	made := map[int]string{}
	seq := make([]string, c.requests)
	for i := range seq {
		k := z.next()
		p, ok := made[k]
		if !ok {
			p = ranked(k)
			made[k] = p
		}
		seq[i] = p
	}
	return seq, nil
}

// write writes base.seq (the sequence) and base.paths (its distinct paths,
// in order of first appearance).
func write(base string, seq []string) error {
	seen := make(map[string]bool, len(seq))
	var distinct []string
	for _, p := range seq {
		if !seen[p] {
			seen[p] = true
			distinct = append(distinct, p)
		}
	}
	if err := writeLines(base+".seq", seq); err != nil {
		return err
	}
	return writeLines(base+".paths", distinct)
}

func writeLines(name string, lines []string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	return f.Close()
}
