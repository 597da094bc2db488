package index

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

// layerWeight is the similarity weight of a pyramid layer.
func layerWeight(layer uint8) float64 {
	switch layer {
	case layerTop:
		return ranking.WeightTop
	case layerMiddle:
		return ranking.WeightMiddle
	case layerBase:
		return ranking.WeightBase
	}
	return ranking.WeightUnplaced
}

// simIndex holds the sparse vectors of every perfume and their postings.
// Accord vectors are the strengths; note vectors weigh each note by its
// layer and its rarity (ranking.NoteIDF). Norms are inverted ahead, so a
// cosine is a dot product times two stored numbers. Postings pack the
// document number with a small value, which bounds a catalogue to 16
// million perfumes.
type simIndex struct {
	accOff, accPost   []uint32 // per accord: doc<<8 | strength
	noteOff, notePost []uint32 // per note: doc<<2 | layer
	noteW             []float32
	// Per document: ranking.Confidence of its ratings over the norm of its
	// accord and note vectors (0 when empty), so a candidate's score is
	// two dot products times two stored numbers (rankSimilar divides the
	// confidence out of the source's own).
	accInv, noteInv []float32
	docAccs         []accRef
	docAccOff       []uint32
	docNotes        []noteRef
	docNoteOff      []uint32
	tier            []uint8 // per document: PriceTier.Rank()
	curated         map[uint32][]uint32
	pool            sync.Pool // *simScratch
}

// simScratch is the working memory of one similarity or match query: a
// sum per document, zero between queries.
type simScratch struct {
	dotA []float32
	dotN []float32
}

// buildSimilarity computes vectors, norms and postings. It runs beside the
// text index build and reads only what add made.
func (b *builder) buildSimilarity() {
	ix := b.ix
	n := len(ix.entries)
	s := &simIndex{
		docAccs: b.docAccs, docAccOff: b.accOff, docNotes: b.docNotes, docNoteOff: b.noteOff,
		accInv: make([]float32, n), noteInv: make([]float32, n), tier: make([]uint8, n),
	}
	s.accOff, s.accPost = postings(b.accords.groups(), n, b.accOff, func(i int) (uint32, uint32) {
		return b.docAccs[i].id(), uint32(b.docAccs[i].strength())
	}, 8)
	s.noteOff, s.notePost = postings(b.notes.groups(), n, b.noteOff, func(i int) (uint32, uint32) {
		return b.docNotes[i].id(), uint32(b.docNotes[i].layer())
	}, 2)
	s.noteW = make([]float32, b.notes.groups())
	for id := range s.noteW {
		s.noteW[id] = float32(ranking.NoteIDF(int(s.noteOff[id+1]-s.noteOff[id]), n))
	}
	for doc := range n {
		var sa, sn float64
		for _, r := range b.docAccs[b.accOff[doc]:b.accOff[doc+1]] {
			sa += float64(r.strength()) * float64(r.strength())
		}
		for _, r := range b.docNotes[b.noteOff[doc]:b.noteOff[doc+1]] {
			w := layerWeight(r.layer()) * float64(s.noteW[r.id()])
			sn += w * w
		}
		c := confidence(ix.entries[doc].RatingCount)
		s.accInv[doc], s.noteInv[doc] = inv(sa)*c, inv(sn)*c
		s.tier[doc] = uint8(ix.entries[doc].PriceTier().Rank())
	}
	s.curated = curatedPairs(b.opts.Curated, ix.bySlug)
	ix.sim = s
	ix.bits = buildMatchBits(s, ix.has)
}

// confidence is ranking.Confidence as stored in the inverse norms.
func confidence(ratings int) float32 { return float32(ranking.Confidence(ratings)) }

func inv(sumSq float64) float32 {
	if sumSq <= 0 {
		return 0
	}
	return float32(1 / math.Sqrt(sumSq))
}

// postings inverts per-document lists (items off[doc]:off[doc+1], each an
// id and a small value) into per-id lists of doc<<shift | value, documents
// ascending.
func postings(ids, docs int, off []uint32, item func(i int) (id, value uint32), shift uint) ([]uint32, []uint32) {
	pOff := make([]uint32, ids+1)
	total := int(off[docs])
	for i := range total {
		id, _ := item(i)
		pOff[id+1]++
	}
	for i := 1; i <= ids; i++ {
		pOff[i] += pOff[i-1]
	}
	post := make([]uint32, total)
	next := slices.Clone(pOff[:ids])
	for doc := range docs {
		for i := off[doc]; i < off[doc+1]; i++ {
			id, v := item(int(i))
			post[next[id]] = uint32(doc)<<shift | v
			next[id]++
		}
	}
	return pOff, post
}

// curatedPairs maps each perfume of an operator pair to its partners.
func curatedPairs(pairs [][2]string, bySlug map[string]uint32) map[uint32][]uint32 {
	out := map[uint32][]uint32{}
	for _, p := range pairs {
		a, okA := bySlug[p[0]]
		c, okC := bySlug[p[1]]
		if !okA || !okC || a == c {
			continue
		}
		if !slices.Contains(out[a], c) {
			out[a] = append(out[a], c)
			out[c] = append(out[c], a)
		}
	}
	return out
}

// Similar returns the perfume with the given slug and up to limit perfumes
// most similar to it, best first; the error wraps catalog.ErrNotFound.
//
// matchScore is ranking.Score of the similarity ranking.SimilarityWeights
// defines: 0.7 × the accord cosine + 0.3 × the note cosine (notes weighted
// base 2 > middle and unplaced 1.5 > top 1, times rarity), times the
// candidate's rating confidence (ranking.Confidence), curated pairs then
// pulled halfway to 100; ties go to the more rated. Candidates are the
// perfumes sharing an accord or a note (found by postings, never by a
// scan), plus curated partners; the source never appears.
//
// Flankers: no product line (brand + first own name word, so Sauvage,
// Sauvage Elixir and Sauvage Parfum are one line) has more than
// ranking.MaxPerLine perfumes in the list, the source's own line included
// (ranking.CapLines), so a shorter list is always the start of a longer
// one. The lists are kept (neighbours.go): a change to this ranking must
// bump ranking.Format.
func (ix *Index) Similar(slug string, limit int) (*Entry, []Scored, error) {
	src, ok := ix.bySlug[slug]
	if !ok {
		return nil, nil, fmt.Errorf("similar to perfume %q: %w", slug, catalog.ErrNotFound)
	}
	return &ix.entries[src], ix.similarOf(src, limit), nil
}

// similarOf is Similar of the perfume numbered src: from its kept list
// when there is one for limit, else ranked.
func (ix *Index) similarOf(src uint32, limit int) []Scored {
	if list, ok := ix.kept(src, false, limit); ok {
		return ix.fromKept(src, list)
	}
	return ix.similar(src, limit, 0)
}

// SimilarAndDupes is Similar(slug, limit) and Dupes(slug, dupesLimit)
// at once, the same lists, for a page that shows both: each kept list is
// looked up once and answers from it, and when both must be ranked the
// two rankings share one accumulation of the dot products.
func (ix *Index) SimilarAndDupes(slug string, limit, dupesLimit int) (*Entry, []Scored, []Scored, error) {
	src, ok := ix.bySlug[slug]
	if !ok {
		return nil, nil, nil, fmt.Errorf("similar to perfume %q: %w", slug, catalog.ErrNotFound)
	}
	srcTier := ix.sim.tier[src]
	sim, simKept := ix.kept(src, false, limit)
	dup, dupKept := ix.kept(src, true, dupesLimit)
	if limit <= 0 {
		sim, simKept = nbList{}, true // nothing asked: nothing to rank
	}
	if dupesLimit <= 0 || srcTier == 0 {
		dup, dupKept = nbList{}, true // no dupes asked, or none can exist
	}
	if !simKept && !dupKept {
		sc := ix.sim.get(len(ix.entries))
		defer ix.sim.put(sc)
		ix.sim.accumulate(src, sc)
		return &ix.entries[src], ix.rankLimited(src, limit, 0, sc), ix.rankLimited(src, dupesLimit, srcTier, sc), nil
	}
	similar, dupes := ix.fromKept(src, sim), ix.fromKept(src, dup)
	if !simKept {
		similar = ix.similar(src, limit, 0)
	}
	if !dupKept {
		dupes = ix.similar(src, dupesLimit, srcTier)
	}
	return &ix.entries[src], similar, dupes, nil
}

// dupes is Dupes of the perfume numbered src.
func (ix *Index) dupes(src uint32, limit int) []Scored {
	srcTier := ix.sim.tier[src]
	if srcTier == 0 {
		return []Scored{}
	}
	if list, ok := ix.kept(src, true, limit); ok {
		return ix.fromKept(src, list)
	}
	return ix.similar(src, limit, srcTier)
}

// Dupes is Similar restricted to perfumes of a strictly lower, known price
// tier than the source (ranking.Cheaper). A source of unknown tier has no
// dupes: an empty list and a nil error.
func (ix *Index) Dupes(slug string, limit int) (*Entry, []Scored, error) {
	src, ok := ix.bySlug[slug]
	if !ok {
		return nil, nil, fmt.Errorf("dupes of perfume %q: %w", slug, catalog.ErrNotFound)
	}
	return &ix.entries[src], ix.dupes(src, limit), nil
}
