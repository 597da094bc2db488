package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

var update = flag.Bool("update", false, "rewrite testdata/kept-lists.digest (only with a new ranking.Format when the lists changed)")

// keptDigestFile records ranking.Format and the digest of the kept lists
// it was computed under (keptDigest).
var keptDigestFile = filepath.Join("testdata", "kept-lists.digest")

// keptDigestStep: the bundled catalogue's sample is every keptDigestStep-th
// perfume, some 400 sources from every part of the file.
const keptDigestStep = 97

const keptDigestUpdate = "go test ./internal/index -run TestKeptListsDigest -update"

// TestKeptListsDigest holds the kept lists to ranking.Format: stored lists
// are shared under a key that holds the format, so lists ranked by a
// changed formula or rule must come with a new format, or replicas serve
// the old ranking. It recomputes the kept lists of a fixed sample of the
// bundled catalogue and of the small catalogue (whose curated pair the
// bundled one lacks) and compares their digest with the committed one.
// -update rewrites the file, and refuses while the lists changed under
// the recorded format.
func TestKeptListsDigest(t *testing.T) {
	got := keptDigest(realIndex(t), keptDigestStep) + keptDigest(smallIndex(), 1)
	sum := sha256.Sum256([]byte(got))
	digest := hex.EncodeToString(sum[:])
	format, want, err := readKeptDigest(keptDigestFile)
	if *update {
		if err == nil && format == ranking.Format && want != digest {
			t.Fatalf("the kept lists changed but ranking.Format is still %d: bump the format (internal/index/ranking/ranking.go), then run -update", format)
		}
		if err := writeKeptDigest(keptDigestFile, digest); err != nil {
			t.Fatal(err)
		}
		return
	}
	switch {
	case err != nil:
		t.Fatalf("%v (%s writes it)", err, keptDigestUpdate)
	case format == ranking.Format && want != digest:
		t.Fatalf("the kept lists changed while ranking.Format stayed %d: stored lists of the old ranking would be served as this one's. "+
			"Bump the format (ranking.Format, internal/index/ranking/ranking.go) and update the digest with %s", format, keptDigestUpdate)
	case format != ranking.Format:
		t.Fatalf("ranking.Format is %d, the digest was recorded under %d: update the digest with %s", ranking.Format, format, keptDigestUpdate)
	}
}

// keptDigest writes the kept lists of every step-th perfume of ix as
// text: the source's id, then each list's items as id:tenths.
func keptDigest(ix *Index, step int) string {
	var b strings.Builder
	sc := ix.sim.get(len(ix.entries))
	defer ix.sim.put(sc)
	for src := 0; src < len(ix.entries); src += step {
		similar, dupes := ix.keptLists(uint32(src), sc)
		fmt.Fprintf(&b, "%d", ix.entries[src].ID)
		for _, list := range [][]keyed{similar, dupes} {
			b.WriteString(" |")
			for _, r := range list {
				fmt.Fprintf(&b, " %d:%d", ix.entries[r.doc].ID, scoreTenths(r.key))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// readKeptDigest reads the "format N" and "sha256 HEX" lines of path.
func readKeptDigest(path string) (format uint32, digest string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", fmt.Errorf("read the kept lists' digest: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), " ")
		switch key {
		case "format":
			n, err := strconv.ParseUint(value, 10, 32)
			if err != nil {
				return 0, "", fmt.Errorf("%s: format %q: %w", path, value, err)
			}
			format = uint32(n)
		case "sha256":
			digest = value
		}
	}
	if err := sc.Err(); err != nil {
		return 0, "", fmt.Errorf("read %s: %w", path, err)
	}
	if format == 0 || digest == "" {
		return 0, "", fmt.Errorf("%s: no format or sha256 line", path)
	}
	return format, digest, nil
}

func writeKeptDigest(path, digest string) error {
	text := fmt.Sprintf(`# The kept neighbour lists (similar and dupes, as index.ComputeNeighbours
# ranks them) of every %dth perfume of the bundled catalogue and of every
# perfume of the small test catalogue, and the ranking.Format they were
# ranked under. TestKeptListsDigest recomputes them; written by
# %s
format %d
sha256 %s
`, keptDigestStep, keptDigestUpdate, ranking.Format, digest)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("write the kept lists' digest: %w", err)
	}
	return nil
}
