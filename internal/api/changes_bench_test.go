package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// BenchmarkChangeFeedWalk walks the whole change feed of the bundled
// catalogue in pages of 1,000, as a nightly copy does, through the
// handler without the access layer, with the neighbour lists filled (a
// served catalogue once they are ranked): one op is the whole walk, and
// MB/s the bytes of the answers; perfumes/s is the walk's rate and cpu-s/op
// the process's CPU time a walk (on a machine shared with other work, the
// steadier figure).
func BenchmarkChangeFeedWalk(b *testing.B) {
	holder := servetest.Catalogue(b)
	ix := holder.Load()
	for c := range ix.NeighbourChunks() {
		if !ix.NeighbourChunkReady(c) {
			if _, err := ix.ComputeNeighbours(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	h := newServer(b, func(c *newConfig) { c.Catalogue = index.NewHolder(ix) })
	if _, perfumes := walkFeed(b, h, true); perfumes != ix.Len() {
		b.Fatalf("walked %d perfumes, want %d", perfumes, ix.Len())
	}
	b.ReportAllocs()
	var total int64
	cpu0 := servetest.CPUTime()
	for b.Loop() {
		n, _ := walkFeed(b, h, false)
		total += n
	}
	b.SetBytes(total / int64(b.N))
	b.ReportMetric((servetest.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(ix.Len())*float64(b.N)/b.Elapsed().Seconds(), "perfumes/s")
}

// walkFeed pages GET /api/perfumes/changes?limit=1000 from the beginning
// to the end and returns the bytes read and, with count set, the changes.
func walkFeed(b *testing.B, h http.Handler, count bool) (int64, int) {
	cursor, w := "", &tailWriter{header: http.Header{}, count: count}
	for {
		w.tail, w.code = w.tail[:0], 0
		h.ServeHTTP(w, httptest.NewRequest("GET", "/api/perfumes/changes?limit=1000&since="+cursor, nil))
		if w.code != http.StatusOK {
			b.Fatalf("%d %s", w.code, w.tail)
		}
		var tail struct {
			NextCursor string `json:"nextCursor"`
			HasMore    bool   `json:"hasMore"`
		}
		// The cursor and hasMore close the answer: read them from its end.
		i := bytes.LastIndex(w.tail, []byte(`"nextCursor":`))
		if i < 0 || json.Unmarshal(append([]byte("{"), w.tail[i:]...), &tail) != nil {
			b.Fatalf("the answer ends %q", w.tail)
		}
		if !tail.HasMore {
			return w.bytes, w.changes
		}
		cursor = tail.NextCursor
	}
}

// tailWriter is a ResponseWriter that keeps only the end of an answer,
// counting its bytes and, with count set, its changes (a detail has one
// brandSlug, a tombstone one deleted).
type tailWriter struct {
	header  http.Header
	count   bool
	code    int
	tail    []byte
	bytes   int64
	changes int
}

func (w *tailWriter) Header() http.Header  { return w.header }
func (w *tailWriter) WriteHeader(code int) { w.code = code }

func (w *tailWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.bytes += int64(len(p))
	if w.count { // a chunk ends after a whole change: no marker is cut in two
		w.changes += bytes.Count(p, []byte(`,"brandSlug":`)) + bytes.Count(p, []byte(`"deleted":true`))
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > 256 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-256:]...)
	}
	return len(p), nil
}
