package index

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/search"
)

// The ranked match: what Match does for a description's terms, an
// exclusion, a brand or sort=popular, in one plain pass over the postings
// of what is asked. Match's own scan (match.go) stays the fast path of a
// structured query without them, whose answers it keeps byte for byte.

// nearShare is how close to a perfume's most voted season (or time of
// day) a season's share must come for the perfume to meet a described
// season: a perfume voted 40% fall and 38% winter suits winter too.
const nearShare = 0.8

// Bits of Index.near: seasons 0–3 as in profile.has, then day and night.
const (
	nearDay   uint8 = 1 << 4
	nearNight uint8 = 1 << 5
)

// excludedBit marks, in rankedWork.met, a perfume having an excluded
// accord or note; the bits below it are the terms met.
const excludedBit = 1 << 31

// maxTerms is how many wishes and wants a ranked match counts apart
// (bits of rankedWork.met); more are refused by resolve.
const maxTerms = 30

// buildRenown ranks every perfume by ranking.Renown (ties: the more
// rated, as the popularity order) into Index.renown, and sets the season
// and time each is near (Index.near). The prior of the weighted rating
// is the catalogue's mean rating.
func (b *builder) buildRenown() {
	ix := b.ix
	n := len(ix.entries)
	sum, rated := 0.0, 0
	for i := range ix.entries {
		if e := &ix.entries[i]; e.Rating > 0 && e.RatingCount > 0 {
			sum += e.Rating
			rated++
		}
	}
	prior := 3.0
	if rated > 0 {
		prior = sum / float64(rated)
	}
	type rec struct {
		renown float64
		pos    uint32
		doc    uint32
	}
	recs := make([]rec, n)
	ix.near = make([]uint8, n)
	for i := range ix.entries {
		e := &ix.entries[i]
		rating := e.Rating
		if rating <= 0 { // unknown: the catalogue's mean, as if unrated
			rating = prior
		}
		recs[i] = rec{ranking.Renown(rating, e.RatingCount, prior), ix.popPos[i], uint32(i)}
		ix.near[i] = nearOf(e)
	}
	slices.SortFunc(recs, func(x, y rec) int { return cmp.Or(cmp.Compare(y.renown, x.renown), cmp.Compare(x.pos, y.pos)) })
	ix.renown = make([]uint32, n)
	ix.byRenown = make([]uint32, n)
	for pos, r := range recs {
		ix.renown[r.doc] = uint32(n - pos)
		ix.byRenown[pos] = r.doc
	}
	words := (n + matchBlock - 1) / matchBlock * blockWords // as matchBits'
	ix.nearBits = make([]uint64, 6*words)
	for d, near := range ix.near {
		for ; near != 0; near &= near - 1 {
			ix.nearBits[bits.TrailingZeros8(near)*words+d/64] |= 1 << (d % 64)
		}
	}
}

// nearOf is the Index.near bits of a perfume.
func nearOf(e *Entry) uint8 {
	s := e.Seasons
	raw := [4]float64{s.Winter, s.Spring, s.Summer, s.Fall}
	top := max(raw[0], raw[1], raw[2], raw[3])
	var near uint8
	for i, v := range raw {
		if v > 0 && v >= nearShare*top {
			near |= 1 << i
		}
	}
	d, nt := e.DayNight.Day, e.DayNight.Night
	if d > 0 && d >= nearShare*nt {
		near |= nearDay
	}
	if nt > 0 && nt >= nearShare*d {
		near |= nearNight
	}
	return near
}

// rankedQuery is what the ranked match asks beside resolved's.
type rankedQuery struct {
	wantAcc, wantNote [][]uint32 // per want, the ids of its accords and notes
	exclAcc, exclNote []uint32
	preferGender      uint16 // profile.has bits that meet the gender (0: none asked)
	preferSeason      int    // -1: none
	preferTime        uint8  // nearDay, nearNight or 0
	brand             int    // a brand group, -1: any, -2: an unknown brand (nothing)
	popular           bool
}

// terms is the number of terms a perfume can meet.
func (rq *rankedQuery) terms(r *resolved) int {
	n := len(r.accIDs) + len(r.noteIDs) + len(rq.wantAcc)
	if rq.preferGender != 0 {
		n++
	}
	if rq.preferSeason >= 0 {
		n++
	}
	if rq.preferTime != 0 {
		n++
	}
	return n
}

// needsRanked reports whether q needs the ranked match.
func needsRanked(q *MatchQuery) bool {
	return q.Sort != "" || len(q.Wants) > 0 || q.Prefer != (Preference{}) || q.Brand != "" ||
		len(q.Exclude.Accords)+len(q.Exclude.Notes) > 0
}

// resolveRanked reads what only the ranked match asks. Wants name the
// catalogue's accords and notes as it spells them (describe's names);
// one it does not know is dropped. Excluded names are checked as match's
// accords and notes are, with suggestions.
func (ix *Index) resolveRanked(q *MatchQuery, r *resolved) (rankedQuery, error) {
	rq := rankedQuery{preferSeason: -1, brand: -1}
	var errs catalog.ParamErrors
	switch q.Sort {
	case "":
	case SortPopular:
		rq.popular = true
	default:
		errs = append(errs, &catalog.ParamError{Parameter: "sort", Message: fmt.Sprintf("unknown sort %q; use %s", q.Sort, SortPopular)})
	}
	if len(q.Wants) > 0 || q.Prefer != (Preference{}) {
		rq.popular = true
	}
	ex := ix.exactNames()
	for _, w := range q.Wants {
		var accs, notes []uint32
		for _, a := range w.Accords {
			if id, ok := ex.acc[a]; ok {
				accs = append(accs, id)
			}
		}
		for _, n := range w.Notes {
			if id, ok := ex.note[n]; ok {
				notes = append(notes, id)
			}
		}
		if len(accs)+len(notes) > 0 {
			rq.wantAcc, rq.wantNote = append(rq.wantAcc, accs), append(rq.wantNote, notes)
		}
	}
	for _, a := range q.Exclude.Accords {
		id, ok := ex.acc[a]
		if !ok {
			id, ok = ix.accordIDs[search.Fold(a)]
		}
		if !ok {
			errs = append(errs, unknownName("accords", "accord", a, ix.AccordNames()))
			continue
		}
		rq.exclAcc = append(rq.exclAcc, id)
	}
	for _, n := range q.Exclude.Notes {
		id, ok := ex.note[n]
		if !ok {
			id, ok = ix.noteIDs[search.Fold(n)]
		}
		if !ok {
			errs = append(errs, unknownName("notes", "note", n, ix.NoteNames()))
			continue
		}
		rq.exclNote = append(rq.exclNote, id)
	}
	if g := q.Prefer.Gender; g != "" {
		rq.preferGender = genderBit(g)
		if g != catalog.Unisex {
			rq.preferGender |= hasUnisex
		}
	}
	if q.Prefer.Season != "" {
		rq.preferSeason = seasonIndex(q.Prefer.Season)
	}
	switch q.Prefer.Time {
	case "day":
		rq.preferTime = nearDay
	case "night":
		rq.preferTime = nearNight
	}
	if q.Brand != "" {
		g, ok := ix.brandSlugs[q.Brand]
		rq.brand = int(g)
		if !ok {
			rq.brand = -2
		}
	}
	if rq.terms(r) > maxTerms {
		errs = append(errs, &catalog.ParamError{Parameter: "query", Message: fmt.Sprintf("at most %d accords, notes and described terms together", maxTerms)})
	}
	return rq, errs.Err()
}

// exactNames maps the catalogue's own spellings of accords and notes to
// their ids, so that names a caller took from the index need no folding.
type exactNames struct{ acc, note map[string]uint32 }

func (ix *Index) exactNames() *exactNames {
	ix.exact.once.Do(func() {
		ix.exact.names = &exactNames{acc: make(map[string]uint32, len(ix.accordName)), note: make(map[string]uint32, len(ix.noteName))}
		for id, a := range ix.accordName {
			ix.exact.names.acc[a] = uint32(id)
		}
		for id, n := range ix.noteName {
			ix.exact.names.note[n] = uint32(id)
		}
		for _, c := range ix.accords {
			if id, ok := ix.accordIDs[search.Fold(c.Name)]; ok {
				ix.exact.names.acc[c.Name] = id
			}
		}
		for _, c := range ix.notes {
			if id, ok := ix.noteIDs[search.Fold(c.Name)]; ok {
				ix.exact.names.note[c.Name] = id
			}
		}
	})
	return ix.exact.names
}

// rankedWork is the working memory of a ranked match, per document, zero
// between matches: the sum of the wishes' fits, the terms met (a bit
// each, excludedBit for an excluded perfume), and the documents touched.
type rankedWork struct {
	sum     []float32
	met     []uint32
	touched []uint32
}

// rankedPool keeps rankedWork between matches.
type rankedPool struct{ p sync.Pool }

func (ix *Index) rankedWork() *rankedWork {
	w, _ := ix.rankedPool.p.Get().(*rankedWork)
	if w == nil {
		w = &rankedWork{sum: make([]float32, len(ix.entries)), met: make([]uint32, len(ix.entries))}
	}
	return w
}

func (ix *Index) putRankedWork(w *rankedWork) {
	for _, d := range w.touched {
		w.sum[d], w.met[d] = 0, 0
	}
	w.touched = w.touched[:0]
	ix.rankedPool.p.Put(w)
}

// matchRanked pushes into top the perfumes that r and rq select and
// counts them, for a match by matchScore with an exclusion or a brand
// (a popular one is matchPopular's). A perfume is selected when it
// passes the hard filters (gender, season, time, brand), has no excluded
// accord or note, and meets at least one term when any is asked; its
// key is match's (the fit of the wishes, or of the filters alone).
func (ix *Index) matchRanked(r *resolved, rq *rankedQuery, top *topK) int {
	if rq.brand == -2 {
		return 0
	}
	w := ix.rankedWork()
	defer ix.putRankedWork(w)
	s := ix.sim
	bit := uint32(1)
	for i, id := range r.accIDs {
		var fit [256]float32
		for st := range fit {
			fit[st] = float32(ranking.AccordFit(r.accWant[i], float64(st)))
		}
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			w.mark(p>>8, bit)
			w.sum[p>>8] += fit[uint8(p)]
		}
		bit <<= 1
	}
	for _, id := range r.noteIDs {
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			w.mark(p>>2, bit)
			w.sum[p>>2]++
		}
		bit <<= 1
	}
	for i := range rq.wantAcc {
		for _, id := range rq.wantAcc[i] {
			for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
				w.mark(p>>8, bit)
			}
		}
		for _, id := range rq.wantNote[i] {
			for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
				w.mark(p>>2, bit)
			}
		}
		bit <<= 1
	}
	for _, id := range rq.exclAcc {
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			w.mark(p>>8, excludedBit)
		}
	}
	for _, id := range rq.exclNote {
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			w.mark(p>>2, excludedBit)
		}
	}
	sc := rankedScan{ix: ix, r: r, rq: rq, w: w, top: top, terms: rq.terms(r), wishes: float32(len(r.accIDs) + len(r.noteIDs))}
	switch {
	case bit > 1: // something is wished: only the perfumes touched can meet it
		for _, d := range w.touched {
			sc.consider(d)
		}
	case rq.brand >= 0:
		for _, d := range ix.brands[rq.brand].docs {
			sc.consider(d)
		}
	default:
		for d := range ix.entries {
			sc.consider(uint32(d))
		}
	}
	return sc.total
}

// mark sets bit in doc's terms met, noting doc as touched.
func (w *rankedWork) mark(doc, bit uint32) {
	if w.met[doc] == 0 {
		w.touched = append(w.touched, doc)
	}
	w.met[doc] |= bit
}

// rankedScan is one pass of matchRanked over its candidates.
type rankedScan struct {
	ix     *Index
	r      *resolved
	rq     *rankedQuery
	w      *rankedWork
	top    *topK
	terms  int
	wishes float32
	total  int
}

// consider counts and pushes doc when it is selected.
func (sc *rankedScan) consider(d uint32) {
	ix, rq := sc.ix, sc.rq
	m := sc.w.met[d]
	if m&excludedBit != 0 || ix.has[d]&sc.r.need != sc.r.need || (rq.brand >= 0 && ix.brandOf[d] != uint32(rq.brand)) {
		return
	}
	met := bits.OnesCount32(m)
	if rq.preferGender&ix.has[d] != 0 {
		met++
	}
	if rq.preferSeason >= 0 && ix.near[d]&(1<<rq.preferSeason) != 0 {
		met++
	}
	if ix.near[d]&rq.preferTime != 0 {
		met++
	}
	if sc.terms > 0 && met == 0 {
		return
	}
	sc.total++
	var fit float64
	if sc.wishes > 0 {
		fit = float64(sc.w.sum[d] / sc.wishes)
	} else {
		sh := sc.r.shares
		fit = sh.fit(sh.sum(&ix.profiles[d]))
	}
	sc.top.push(scoreKey(fit)|ix.popKey(d), d)
}

// rankedScore is the matchScore (0–1) of a key matchRanked pushed.
func rankedScore(key uint64, rq *rankedQuery, terms int) float64 {
	if !rq.popular {
		return keyScore(key)
	}
	if terms == 0 {
		return 1
	}
	return float64(key>>32) / float64(terms)
}
