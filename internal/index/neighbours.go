package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

// Neighbour lists: the most similar perfumes and the best dupes of every
// perfume, ranked once per catalogue and kept, so that Similar and Dupes
// answer in O(limit) instead of scanning the catalogue (a cold similar
// list costs a hundred times what reading a kept one does).
//
// A list holds the first KeptSimilar (KeptDupes) items of the ranking
// Similar (Dupes) makes, as document numbers and scores. Since a shorter
// list is always the start of a longer one (see Similar), any limit up to
// the kept length is a prefix of the kept list; a list shorter than kept
// is the whole ranking, good for any limit. Anything else, and a perfume
// whose chunk is not ready yet, is ranked as before.
//
// The lists are computed in chunks of NeighbourChunk perfumes, by whoever
// owns the index (ComputeNeighbours, which also encodes them for a store)
// or loaded back from a store (LoadNeighbours) under the index's
// NeighbourKey, which names everything the rankings depend on: another
// replica, or the next start on the same catalogue, loads them instead of
// ranking again. The key holds the lists' version, ranking.Format, which
// a change to the rankings must bump (see there).
const (
	// KeptSimilar is the length of a kept similar list: the API's largest
	// similar limit, so every similar answer comes from the lists.
	KeptSimilar = 20
	// KeptDupes is the length of a kept dupes list: the API's default
	// dupes limit (a deeper page is ranked on demand).
	KeptDupes = 20
	// NeighbourChunk is how many perfumes' lists a chunk holds.
	NeighbourChunk = 1024
)

// neighbours is an index's kept lists, filled chunk by chunk.
type neighbours struct {
	chunks []atomic.Pointer[nbChunk]
	ready  atomic.Int32
	// key is NeighbourKey, computed once.
	keyOnce sync.Once
	key     string
}

// nbChunk holds the lists of the perfumes first … first+n-1: perfume
// first+i's similar items are items off[2i] to off[2i+1]-1, its dupes
// off[2i+1] to off[2i+2]-1; an item is a listed perfume (docs) and its
// matchScore in tenths, 0–1000 (tenths). Two arrays, not an array of
// pairs: six bytes an item instead of eight (some 10 MB at 200,000
// perfumes).
type nbChunk struct {
	off    []uint32
	docs   []uint32
	tenths []uint16
}

// nbList is one perfume's kept list.
type nbList struct {
	docs   []uint32
	tenths []uint16
}

// NeighbourChunks is the number of chunks the lists of this index take.
func (ix *Index) NeighbourChunks() int { return len(ix.neighbours.chunks) }

// NeighbourChunkReady reports whether chunk c's lists are in place.
func (ix *Index) NeighbourChunkReady(c int) bool {
	return c >= 0 && c < len(ix.neighbours.chunks) && ix.neighbours.chunks[c].Load() != nil
}

// NeighboursReady is the number of chunks in place.
func (ix *Index) NeighboursReady() int { return int(ix.neighbours.ready.Load()) }

// ComputeNeighbours ranks the lists of chunk c, puts them in place and
// returns them encoded for a store. It costs what ranking each of the
// chunk's perfumes costs (one accumulation for both lists), and is safe to
// call beside queries and beside other chunks' computations.
func (ix *Index) ComputeNeighbours(c int) ([]byte, error) {
	if c < 0 || c >= ix.NeighbourChunks() {
		return nil, fmt.Errorf("neighbour chunk %d of %d", c, ix.NeighbourChunks())
	}
	first := c * NeighbourChunk
	n := min(NeighbourChunk, len(ix.entries)-first)
	ch := &nbChunk{off: make([]uint32, 1, 2*n+1)}
	s := ix.sim
	sc := s.get(len(ix.entries))
	defer s.put(sc)
	for i := range n {
		similar, dupes := ix.keptLists(uint32(first+i), sc)
		ch.add(similar)
		ch.add(dupes)
	}
	ix.install(c, ch)
	return ch.encode(first, n), nil
}

// keptLists ranks the kept lists of src, similar and dupes, with one
// accumulation in sc, which it leaves zeroed.
func (ix *Index) keptLists(src uint32, sc *simScratch) (similar, dupes []keyed) {
	s := ix.sim
	s.accumulate(src, sc)
	similar = ix.rankKeyed(src, KeptSimilar, 0, sc)
	if t := s.tier[src]; t > 0 {
		dupes = ix.rankKeyed(src, KeptDupes, t, sc)
	}
	clear(sc.dotA)
	clear(sc.dotN)
	return similar, dupes
}

func (ch *nbChunk) add(ranked []keyed) {
	for _, r := range ranked {
		ch.docs = append(ch.docs, r.doc)
		ch.tenths = append(ch.tenths, scoreTenths(r.key))
	}
	ch.off = append(ch.off, uint32(len(ch.docs)))
}

// scoreTenths is a ranking key's matchScore (ranking.Score, one decimal)
// in tenths; tenths/10 gives back the very float64 ranking.Score returns,
// both being an integral float64 divided by 10.
func scoreTenths(key uint64) uint16 {
	return uint16(math.Round(ranking.Score(keyScore(key)) * 10))
}

// install puts chunk c in place, once.
func (ix *Index) install(c int, ch *nbChunk) {
	if ix.neighbours.chunks[c].CompareAndSwap(nil, ch) {
		ix.neighbours.ready.Add(1)
	}
}

// kept returns the kept list of src (dupes or similar) good for limit, or
// false when there is none: its chunk is not ready, or limit goes beyond
// a list that was cut at its kept length.
func (ix *Index) kept(src uint32, dupes bool, limit int) (nbList, bool) {
	nb := ix.neighbours
	ch := nb.chunks[src/NeighbourChunk].Load()
	if ch == nil {
		return nbList{}, false
	}
	i := 2 * (src % NeighbourChunk)
	keptLen := KeptSimilar
	if dupes {
		i++
		keptLen = KeptDupes
	}
	from, to := int(ch.off[i]), int(ch.off[i+1])
	switch {
	case limit <= to-from:
		to = from + max(limit, 0)
	case to-from >= keptLen: // cut at its kept length, and more is asked
		return nbList{}, false
	} // else: shorter than kept, so the whole ranking
	return nbList{docs: ch.docs[from:to], tenths: ch.tenths[from:to]}, true
}

// fromKept builds the answer items of a kept list, as rankLimited does.
func (ix *Index) fromKept(src uint32, list nbList) []Scored {
	out := make([]Scored, 0, len(list.docs))
	if len(list.docs) == 0 {
		return out
	}
	for i, doc := range list.docs {
		out = append(out, Scored{Entry: &ix.entries[doc], Score: float64(list.tenths[i]) / 10})
	}
	ix.fillShared(out, src, func(i int) uint32 { return list.docs[i] })
	return out
}

// Chunk encoding: "FNB1", ranking.Format, the first perfume and the count
// (uint32 each), 2n+1 offsets (uint32), then the items (uint32 document,
// uint16 tenths); little-endian throughout.
const nbMagic = "FNB1"

func (ch *nbChunk) encode(first, n int) []byte {
	b := make([]byte, 0, 16+4*len(ch.off)+6*len(ch.docs))
	b = append(b, nbMagic...)
	b = binary.LittleEndian.AppendUint32(b, ranking.Format)
	b = binary.LittleEndian.AppendUint32(b, uint32(first))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	for _, o := range ch.off {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	for i, doc := range ch.docs {
		b = binary.LittleEndian.AppendUint32(b, doc)
		b = binary.LittleEndian.AppendUint16(b, ch.tenths[i])
	}
	return b
}

// errChunk is what a stored chunk that does not fit this index is.
var errChunk = errors.New("neighbour chunk does not fit this index")

// LoadNeighbours puts in place chunk c as ComputeNeighbours encoded it. A chunk that does not fit this index, by
// its format, place, size or contents, is refused with an error and
// nothing changes: the caller ranks it afresh.
func (ix *Index) LoadNeighbours(c int, b []byte) error {
	if c < 0 || c >= ix.NeighbourChunks() {
		return fmt.Errorf("%w: chunk %d of %d", errChunk, c, ix.NeighbourChunks())
	}
	first := c * NeighbourChunk
	n := min(NeighbourChunk, len(ix.entries)-first)
	le := binary.LittleEndian
	if len(b) < 16 || string(b[:4]) != nbMagic || le.Uint32(b[4:]) != ranking.Format ||
		le.Uint32(b[8:]) != uint32(first) || le.Uint32(b[12:]) != uint32(n) {
		return fmt.Errorf("%w: chunk %d: bad header", errChunk, c)
	}
	b = b[16:]
	if len(b) < 4*(2*n+1) {
		return fmt.Errorf("%w: chunk %d: short", errChunk, c)
	}
	ch := &nbChunk{off: make([]uint32, 2*n+1)}
	for i := range ch.off {
		ch.off[i] = le.Uint32(b[4*i:])
		if (i == 0 && ch.off[i] != 0) || (i > 0 && ch.off[i] < ch.off[i-1]) {
			return fmt.Errorf("%w: chunk %d: offsets", errChunk, c)
		}
	}
	b = b[4*len(ch.off):]
	items := int(ch.off[2*n])
	if len(b) != 6*items {
		return fmt.Errorf("%w: chunk %d: %d bytes of items for %d", errChunk, c, len(b), items)
	}
	for i := range n {
		if ch.off[2*i+1]-ch.off[2*i] > KeptSimilar || ch.off[2*i+2]-ch.off[2*i+1] > KeptDupes {
			return fmt.Errorf("%w: chunk %d: a list too long", errChunk, c)
		}
	}
	ch.docs, ch.tenths = make([]uint32, items), make([]uint16, items)
	for i := range items {
		doc, tenths := le.Uint32(b[6*i:]), le.Uint16(b[6*i+4:])
		if int(doc) >= len(ix.entries) || tenths > 1000 {
			return fmt.Errorf("%w: chunk %d: item %d", errChunk, c, i)
		}
		ch.docs[i], ch.tenths[i] = doc, tenths
	}
	ix.install(c, ch)
	return nil
}

// NeighbourKey names what the kept lists depend on: the format, every
// perfume's id in index order, and everything the similarity rankings read
// (vectors, postings, norms, tiers, curated pairs, product lines and the
// popularity order that breaks ties). Two indexes with the same key rank
// alike, so one's stored lists serve the other. It is computed once per
// index (some 50 ms at 200,000 perfumes), not at build time.
func (ix *Index) NeighbourKey() string {
	nb := ix.neighbours
	nb.keyOnce.Do(func() {
		h := sha256.New()
		w := hashWriter{h: h}
		w.u32(ranking.Format, KeptSimilar, KeptDupes, ranking.MaxPerLine, uint32(len(ix.entries)))
		for i := range ix.entries {
			w.u64(uint64(ix.entries[i].ID))
		}
		s := ix.sim
		w.u32(s.accOff...)
		w.u32(s.accPost...)
		w.u32(s.noteOff...)
		w.u32(s.notePost...)
		w.f32(s.noteW...)
		w.f32(s.accInv...)
		w.f32(s.noteInv...)
		w.bytes(s.tier)
		for i := range ix.entries {
			w.u32(ix.popPos[i])
			w.u64(ix.line[i])
			w.u32(s.docAccOff[i], s.docNoteOff[i])
		}
		for _, r := range s.docAccs {
			w.u32(uint32(r))
		}
		for _, r := range s.docNotes {
			w.u32(uint32(r))
		}
		docs := make([]uint32, 0, len(s.curated))
		for d := range s.curated {
			docs = append(docs, d)
		}
		slices.Sort(docs)
		for _, d := range docs {
			w.u32(d, uint32(len(s.curated[d])))
			w.u32(s.curated[d]...)
		}
		w.flush()
		nb.key = hex.EncodeToString(h.Sum(nil)[:16])
	})
	return nb.key
}

// hashWriter feeds numbers to a hash, little-endian, through a buffer.
type hashWriter struct {
	h   hash.Hash
	buf []byte
}

func (w *hashWriter) grow(n int) {
	if len(w.buf)+n > 1<<16 {
		w.flush()
	}
}

func (w *hashWriter) flush() {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
}

func (w *hashWriter) u32(vs ...uint32) {
	for _, v := range vs {
		w.grow(4)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
	}
}

func (w *hashWriter) u64(v uint64) {
	w.grow(8)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
}

func (w *hashWriter) f32(vs ...float32) {
	for _, v := range vs {
		w.grow(4)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, math.Float32bits(v))
	}
}

func (w *hashWriter) bytes(b []byte) {
	w.flush()
	w.h.Write(b)
}
