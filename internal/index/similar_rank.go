package index

import (
	"slices"

	"github.com/fragrance-data/fragrance/internal/index/ranking"
)

// The ranking of similar and dupes lists, with the formula and rules of
// package ranking. Its lists are kept and shared between replicas
// (neighbours.go): any change here that changes a list must bump
// ranking.Format (TestKeptListsDigest fails until it does).

// similar ranks the perfumes like src, only those of a known tier below
// maxTier when maxTier > 0.
func (ix *Index) similar(src uint32, limit int, maxTier uint8) []Scored {
	if limit <= 0 {
		return []Scored{}
	}
	s := ix.sim
	sc := s.get(len(ix.entries))
	defer s.put(sc)
	s.accumulate(src, sc)
	return ix.rankLimited(src, limit, maxTier, sc)
}

// rankLimited is similar on dot products already added up in sc: it only
// reads them, so one accumulation serves several rankings of one source.
func (ix *Index) rankLimited(src uint32, limit int, maxTier uint8, sc *simScratch) []Scored {
	picked := ix.rankKeyed(src, limit, maxTier, sc)
	out := make([]Scored, 0, len(picked))
	if len(picked) == 0 {
		return out
	}
	for _, r := range picked {
		out = append(out, ix.scored(r))
	}
	ix.fillShared(out, src, func(i int) uint32 { return picked[i].doc })
	return out
}

// rankKeyed is rankLimited's ranking: the documents picked, best first,
// with their keys.
func (ix *Index) rankKeyed(src uint32, limit int, maxTier uint8, sc *simScratch) []keyed {
	if limit <= 0 {
		return nil
	}
	// Keep a few times limit by score, then apply the line cap; should the
	// cap leave the list short while more candidates wait, keep more.
	for k := limit*3 + 8; ; k *= 4 {
		top := ix.rankSimilar(src, maxTier, sc, newTopK(k))
		picked := ranking.CapLines(top.sorted(), limit, func(r keyed) uint64 { return ix.line[r.doc] })
		if len(picked) >= limit || len(top.h) < k {
			return picked
		}
	}
}

// rankSimilar scores every perfume with a non-zero dot product (and the
// curated partners) as ranking.SimilarityWeights defines, pushing them
// into top.
//
// It runs once per cold query over every document, so the common case is
// kept to a few float32 operations: the source and its curated partners
// (the only documents scored differently) split the catalogue into
// stretches that simScan walks without asking, per document, which kind
// it is, and a document is compared with the heap's floor before any key
// is built. The pushes, and so the kept set, are exactly those of scoring
// every document in turn.
func (ix *Index) rankSimilar(src uint32, maxTier uint8, sc *simScratch, top *topK) *topK {
	s := ix.sim
	wa, wn := ranking.SimilarityWeights(s.accInv[src] > 0, s.noteInv[src] > 0)
	// The source's inverse norms without its own confidence (never 0).
	c := confidence(ix.entries[src].RatingCount)
	r := simScan{ix: ix, sc: sc, top: top, maxTier: maxTier,
		fa: float32(wa) * s.accInv[src] / c, fn: float32(wn) * s.noteInv[src] / c}
	r.setFloor()
	var buf [8]uint32
	skip := append(append(buf[:0], src), s.curated[src]...)
	slices.Sort(skip)
	from := uint32(0)
	for _, doc := range skip {
		r.scan(from, doc)
		if doc != src {
			r.curated(doc)
		}
		from = doc + 1
	}
	r.scan(from, uint32(len(sc.dotA)))
	return top
}

// simScan is one ranking pass of rankSimilar.
type simScan struct {
	ix      *Index
	sc      *simScratch
	top     *topK
	maxTier uint8
	fa, fn  float32 // the source's weight over its norms, accords and notes
	// floor: a similarity at most this can't enter top. It is never below
	// 0, since only a positive similarity counts.
	floor float32
}

func (r *simScan) setFloor() { r.floor = max(below32(r.top.floor()), 0) }

// scan pushes the documents from up to to (neither the source nor a
// curated partner among them) whose similarity is positive and can enter
// top. The similarity is computed as the same float32 expression as in
// curated, so rounding is the same.
func (r *simScan) scan(from, to uint32) {
	s := r.ix.sim
	// Re-sliced to one length, so the loop needs no bounds checks.
	dotA := r.sc.dotA[from:to]
	dotN := r.sc.dotN[from:to][:len(dotA)]
	accInv := s.accInv[from:to][:len(dotA)]
	noteInv := s.noteInv[from:to][:len(dotA)]
	tier := s.tier[from:to][:len(dotA)]
	fa, fn, floor, maxTier := r.fa, r.fn, r.floor, r.maxTier
	for i, a := range dotA {
		sim := fa*a*accInv[i] + fn*dotN[i]*noteInv[i]
		if !(sim > floor) { // the usual case, once top is full
			continue
		}
		if maxTier > 0 && !ranking.Cheaper(tier[i], maxTier) {
			continue
		}
		doc := from + uint32(i)
		r.top.push(scoreKey(float64(min(sim, 1)))|r.ix.popKey(doc), doc)
		r.setFloor()
		floor = r.floor
	}
}

// curated pushes a curated partner of the source, whose similarity is
// pulled towards 1 and which counts even when it shares nothing.
func (r *simScan) curated(doc uint32) {
	s := r.ix.sim
	if r.maxTier > 0 && !ranking.Cheaper(s.tier[doc], r.maxTier) {
		return
	}
	a, n := r.sc.dotA[doc], r.sc.dotN[doc]
	sim := ranking.Curated(float64(min(max(r.fa*a*s.accInv[doc]+r.fn*n*s.noteInv[doc], 0), 1)))
	if sim > 0 {
		r.top.push(scoreKey(sim)|r.ix.popKey(doc), doc)
		r.setFloor()
	}
}

// scored builds a result item, without its shared lists (fillShared); the
// ranking key holds the score in its upper half.
func (ix *Index) scored(r keyed) Scored {
	return Scored{Entry: &ix.entries[r.doc], Score: ranking.Score(keyScore(r.key))}
}

// scoreKey puts a 0–1 score in the upper half of a ranking key, above a
// popularity key; keyScore reads it back.
func scoreKey(s float64) uint64 { return uint64(min(max(s, 0), 1)*(1<<30)) << 32 }

func keyScore(key uint64) float64 { return float64(key>>32) / (1 << 30) }

// fillShared sets what each of out (the documents doc(i), found for src)
// shares with src: its accords (with its own strengths, strongest first)
// and its notes (in pyramid order, by their canonical names) among src's.
// The lists of all items are cut from one array each, not made two per
// item (an answer of 20 made 40 allocations), each capped at its own
// length so that appending to one cannot overwrite the next; empty, never
// nil. It returns a value made of what it read ahead (as Prefetch does),
// which callers may drop: fillShared is not inlined, so the reads stay.
func (ix *Index) fillShared(out []Scored, src uint32, doc func(i int) uint32) (warm uint32) {
	if len(out) == 0 {
		return 0
	}
	s := ix.sim
	// src's accords and notes, and a filter of their ids: most of a
	// listed perfume's accords and notes are not src's, and the filter
	// says so without a walk of src's list.
	var accBuf, noteBuf [64]uint32
	var accIn, noteIn idFilter
	srcAccs, srcNotes := accBuf[:0], noteBuf[:0]
	for _, r := range s.docAccs[s.docAccOff[src]:s.docAccOff[src+1]] {
		srcAccs = append(srcAccs, r.id())
		accIn.add(r.id())
	}
	for _, r := range s.docNotes[s.docNoteOff[src]:s.docNoteOff[src+1]] {
		srcNotes = append(srcNotes, r.id())
		noteIn.add(r.id())
	}
	// The items' lists are found first, all of them, and read after: the
	// listed perfumes lie anywhere in memory, and loads that do not wait
	// on one another overlap, where one item at a time waits for each.
	type lists struct {
		accs  []accRef
		notes []noteRef
		list  AccordList
	}
	var small [32]lists
	items := small[:0]
	for i := range out {
		d := doc(i)
		items = append(items, lists{
			accs:  s.docAccs[s.docAccOff[d]:s.docAccOff[d+1]],
			notes: s.docNotes[s.docNoteOff[d]:s.docNoteOff[d+1]],
			list:  out[i].Entry.Accords(),
		})
	}
	// Then the first and last lines of each item's lists are read, before
	// any is walked: the walks branch on what they find, which stops the
	// processor from running ahead into the next item's lists (the
	// benchmark Cold200k/shared10 measures it).
	for _, it := range items {
		if n := len(it.accs); n > 0 {
			warm += uint32(it.accs[0]) + uint32(it.accs[n-1])
		}
		if n := len(it.notes); n > 0 {
			warm += uint32(it.notes[0]) + uint32(it.notes[n-1])
		}
		if it.list.Len() > 0 {
			warm += it.list.ids[0] + uint32(it.list.strengths[0])
		}
	}
	type span struct{ acc, note int32 }
	var spans [32]span
	ends := spans[:0]
	// The shared accords are an AccordList (spelling ids and strengths
	// cut from one array each), so that they are written from the
	// catalogue's table of accords by spelling id, not looked up by name.
	accIDs := make([]uint32, 0, len(out)*min(len(srcAccs), 3))
	accStrengths := make([]float64, 0, cap(accIDs))
	notes := make([]string, 0, len(out)*min(len(srcNotes), 3))
	for _, it := range items {
		for _, r := range it.accs {
			if accIn.has(r.id()) && slices.Contains(srcAccs, r.id()) {
				accIDs = append(accIDs, it.list.ids[r.pos()])
				accStrengths = append(accStrengths, it.list.strengths[r.pos()])
			}
		}
		for _, r := range it.notes {
			if noteIn.has(r.id()) && slices.Contains(srcNotes, r.id()) {
				notes = append(notes, ix.noteName[r.id()])
			}
		}
		ends = append(ends, span{int32(len(accIDs)), int32(len(notes))})
	}
	var prev span
	for i, e := range ends {
		out[i].SharedAccords = AccordList{
			names:     items[i].list.names,
			ids:       accIDs[prev.acc:e.acc:e.acc],
			strengths: accStrengths[prev.acc:e.acc:e.acc],
		}
		out[i].SharedNotes = notes[prev.note:e.note:e.note]
		prev = e
	}
	return warm
}

// idFilter is a set of ids that may say yes for an id not in it (one in
// eight or so for a perfume's notes) but never no for one in it: one bit
// for each id modulo 512.
type idFilter [8]uint64

func (f *idFilter) add(id uint32)      { f[id>>6&7] |= 1 << (id & 63) }
func (f *idFilter) has(id uint32) bool { return f[id>>6&7]&(1<<(id&63)) != 0 }

// accumulate adds up src's dot products with every perfume sharing an
// accord or a note, walking only the postings of src's own accords and
// notes.
func (s *simIndex) accumulate(src uint32, sc *simScratch) {
	dotA, dotN := sc.dotA, sc.dotN
	for _, r := range s.docAccs[s.docAccOff[src]:s.docAccOff[src+1]] {
		w := float32(r.strength())
		for _, p := range s.accPost[s.accOff[r.id()]:s.accOff[r.id()+1]] {
			dotA[p>>8] += w * float32(p&0xff)
		}
	}
	for _, r := range s.docNotes[s.docNoteOff[src]:s.docNoteOff[src+1]] {
		idf := s.noteW[r.id()]
		w := float32(layerWeight(r.layer())) * idf * idf
		var lw [4]float32 // w times each layer's weight, by layer
		for l := range lw {
			lw[l] = w * float32(layerWeight(uint8(l)))
		}
		for _, p := range s.notePost[s.noteOff[r.id()]:s.noteOff[r.id()+1]] {
			dotN[p>>2] += lw[p&3]
		}
	}
}

// get returns zeroed scratch arrays for n documents. Dense arrays cleared
// after use beat stamps here: a similarity query touches most documents.
func (s *simIndex) get(n int) *simScratch {
	sc, _ := s.pool.Get().(*simScratch)
	if sc == nil {
		sc = &simScratch{dotA: make([]float32, n), dotN: make([]float32, n)}
	}
	return sc
}

func (s *simIndex) put(sc *simScratch) {
	clear(sc.dotA)
	clear(sc.dotN)
	s.pool.Put(sc)
}
