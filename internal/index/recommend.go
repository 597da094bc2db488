package index

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/search"
)

// RecommendQuery is a taste: perfumes liked (at least one) and disliked,
// by slug, accords and notes never to include, and a gender (empty: any).
type RecommendQuery struct {
	Liked, Disliked []string
	Avoid           []string
	Gender          catalog.Gender
	Page, Limit     int
}

// Recommended is a recommendation with why: Score is its closeness to
// the taste (0–100), Reasons what it shares with the liked perfumes.
type Recommended struct {
	Scored
	Reasons []Reason
}

// Reason is what a recommendation shares with one liked perfume: the
// accords (with the recommendation's strengths, strongest first) and the
// notes (in pyramid order).
type Reason struct {
	Liked   *Entry
	Accords AccordList
	Notes   []string
}

// RecommendResult is one page of recommendations and the liked perfumes
// they were made for, in the order asked.
type RecommendResult struct {
	Source                    []*Entry
	Items                     []Recommended
	Total, Page, Pages, Limit int
}

// dislikeWeight is how far a disliked perfume pushes the taste away:
// its unit vector, times this, is taken from the liked ones' sum, so a
// perfume like both a liked and a disliked one ranks below one like the
// liked one alone.
const dislikeWeight = 0.5

// tasteAccords and tasteNotes are how many accords and notes a taste
// keeps, its strongest: what the liked perfumes share most. A single
// perfume has about as many; ten liked ones would otherwise walk the
// postings of most accords and scores of notes, for weights that change
// little of the order.
const (
	tasteAccords = 8
	tasteNotes   = 20
)

// otherGenderPull scales the closeness of a perfume made for the other
// gender than every liked one (unisex ones aside), when no gender is
// asked: a taste of men's perfumes shares that too, yet a women's
// perfume close enough still shows.
const otherGenderPull = 0.85

// reasonsShown is the most liked perfumes a recommendation's reasons name.
const reasonsShown = 3

// Recommend ranks perfumes for a taste. The taste is a profile made of
// the liked perfumes: the sum of their accord vectors and of their note
// vectors (each vector of unit length, notes weighted by layer and
// rarity as similar weighs them), less dislikeWeight times the disliked
// ones'. A candidate's closeness to it is similar's formula
// (ranking.SimilarityWeights: the accord cosine and the note cosine,
// times the candidate's rating confidence), so what several liked
// perfumes share weighs most. Candidates share an accord or a note with
// the taste; a liked or disliked perfume never appears, nor one having an
// avoided accord or note, nor (with Gender) one of another gender than
// Gender or unisex. Among perfumes within a point of closeness the better
// known (ranking.Renown) lead. A page holds at most half its length of
// one brand while other perfumes remain (the rest wait for the next
// page). Unknown slugs give an error wrapping catalog.ErrNotFound naming
// them all; unknown avoided names a catalog.ParamError (parameter avoid)
// with suggestions.
func (ix *Index) Recommend(q RecommendQuery) (RecommendResult, error) {
	liked, disliked, err := ix.docsOf(q.Liked, q.Disliked)
	if err != nil {
		return RecommendResult{}, err
	}
	avoid, err := ix.avoided(q.Avoid)
	if err != nil {
		return RecommendResult{}, err
	}
	_, from, p, l := paging(q.Page, q.Limit)
	res := RecommendResult{Page: p, Limit: l, Items: []Recommended{}}
	for _, d := range liked {
		res.Source = append(res.Source, &ix.entries[d])
	}
	s := ix.sim
	sc := s.get(len(ix.entries))
	defer s.put(sc)
	fa, fn := ix.accumulateTaste(liked, disliked, sc)
	skip := make([]uint64, (len(ix.entries)+63)/64)
	for _, d := range slices.Concat(liked, disliked) {
		skip[d/64] |= 1 << (d % 64)
	}
	for _, id := range avoid.acc {
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			skip[p>>8/64] |= 1 << (p >> 8 % 64)
		}
	}
	for _, id := range avoid.note {
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			skip[p>>2/64] |= 1 << (p >> 2 % 64)
		}
	}
	if q.Gender != "" { // the perfumes of another gender than Gender or unisex are skipped
		mb := ix.bits
		g := mb.filter[bits.TrailingZeros16(genderBit(q.Gender))*mb.words:]
		u := mb.filter[bits.TrailingZeros16(hasUnisex)*mb.words:]
		for j := range skip {
			skip[j] |= ^(g[j] | u[j])
		}
	}
	want := from + l
	if from >= len(ix.entries) {
		want = 0
	}
	// Rank a few pages more than asked, so that the brand cap can take
	// perfumes from further down; should that run short while more wait,
	// rank more.
	var other []uint64 // the perfumes of the other gender than every liked one
	if g := ix.likedGender(liked); q.Gender == "" && g != 0 {
		mb := ix.bits
		other = mb.filter[bits.TrailingZeros16(g^(hasMasculine|hasFeminine))*mb.words:][:len(skip)]
	}
	var ranked []keyed
	for k := want*2 + 16; ; k *= 4 {
		top := newTopK(k)
		res.Total = ix.rankTaste(sc, fa, fn, skip, other, top)
		ranked = top.sorted()
		if len(top.h) < k || len(ranked) >= 2*want {
			break
		}
	}
	page := capBrands(ranked, l, func(d uint32) uint32 { return ix.brandOf[d] })
	res.Pages = pages(res.Total, l)
	if from < len(page) {
		for _, kd := range page[from:min(from+l, len(page))] {
			d := kd.doc
			sim := fa*sc.dotA[d]*s.accInv[d] + fn*sc.dotN[d]*s.noteInv[d]
			if other != nil && other[d/64]>>(d%64)&1 != 0 {
				sim *= otherGenderPull
			}
			res.Items = append(res.Items, Recommended{Scored: Scored{Entry: &ix.entries[d], Score: ranking.Score(float64(sim))}})
		}
	}
	ix.addReasons(res.Items, liked)
	return res, nil
}

// rankTaste pushes into top, by closeness in steps of a point and then
// renown, the perfumes close to the taste (sc's dot products, made a
// similarity by fa and fn, and by otherGenderPull for those other marks)
// that skip does not mark, and returns how many there are. As in
// rankSimilar, a perfume is compared with the heap's floor before any key
// is made; skip and other are read a word at a time.
func (ix *Index) rankTaste(sc *simScratch, fa, fn float32, skip, other []uint64, top *topK) int {
	s := ix.sim
	n := len(sc.dotA)
	total := 0
	floor := float32(-1) // a closeness below it can't enter top
	for j, sk := range skip {
		var ot uint64
		if other != nil {
			ot = other[j]
		}
		from := j * 64
		to := min(from+64, n)
		dotA, dotN := sc.dotA[from:to], sc.dotN[from:to]
		accInv, noteInv := s.accInv[from:to], s.noteInv[from:to]
		dotN, accInv, noteInv = dotN[:len(dotA)], accInv[:len(dotA)], noteInv[:len(dotA)]
		for i, a := range dotA {
			// Counted without a branch: about half the catalogue is close
			// at all, a coin toss the branch predictor would lose; the
			// branch taken is on the floor, rarely passed once top is full.
			keep := int(^sk >> i & 1)
			sim := (fa*a*accInv[i] + fn*dotN[i]*noteInv[i]) * (1 - (1-otherGenderPull)*float32(ot>>i&1))
			pos := 0
			if sim > 0 {
				pos = 1
			}
			total += pos & keep
			if !(sim >= floor) || pos&keep == 0 {
				continue
			}
			d := uint32(from + i)
			step := math.Floor(float64(min(sim, 1))*100) / 100
			top.push(scoreKey(step)|uint64(ix.renown[d]), d)
			if f := top.floor(); f >= 0 {
				floor = float32(f)
			}
		}
	}
	return total
}

// likedGender is the profile.has bit of the gender every liked perfume
// is made for, unisex ones aside (0 when they differ or all are unisex).
func (ix *Index) likedGender(liked []uint32) uint16 {
	var g uint16
	for _, d := range liked {
		switch b := ix.has[d] & (hasMasculine | hasFeminine); {
		case b == 0:
		case g == 0:
			g = b
		case g != b:
			return 0
		}
	}
	return g
}

// docsOf returns the documents of the liked and disliked slugs, or an
// error naming every unknown one.
func (ix *Index) docsOf(liked, disliked []string) ([]uint32, []uint32, error) {
	var missing []string
	look := func(slugs []string) []uint32 {
		var out []uint32
		for _, s := range slugs {
			d, ok := ix.bySlug[s]
			if !ok {
				missing = append(missing, s)
				continue
			}
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
		return out
	}
	l, d := look(liked), look(disliked)
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("no perfume %s: %w", quoteList(missing), catalog.ErrNotFound)
	}
	return l, d, nil
}

// avoidIDs are the accords and notes a recommendation avoids.
type avoidIDs struct{ acc, note []uint32 }

// avoided resolves avoided names: each an accord, a note or both.
func (ix *Index) avoided(names []string) (avoidIDs, error) {
	var a avoidIDs
	var errs catalog.ParamErrors
	for _, name := range names {
		f := search.Fold(name)
		acc, okA := ix.accordIDs[f]
		note, okN := ix.noteIDs[f]
		if okA {
			a.acc = append(a.acc, acc)
		}
		if okN {
			a.note = append(a.note, note)
		}
		if !okA && !okN {
			e := unknownName("avoid", "accord or note", name, append(ix.AccordNames(), ix.NoteNames()...))
			errs = append(errs, e)
		}
	}
	return a, errs.Err()
}

// accumulateTaste adds up in sc every perfume's dot products with the
// taste of liked less disliked, and returns the factors that make them a
// similarity: the weights of SimilarityWeights over the taste's norms.
func (ix *Index) accumulateTaste(liked, disliked []uint32, sc *simScratch) (fa, fn float32) {
	s := ix.sim
	accW := map[uint32]float64{}
	noteW := map[uint32]float64{}
	add := func(doc uint32, sign float64) {
		c := float64(confidence(ix.entries[doc].RatingCount))
		ai, ni := float64(s.accInv[doc])/c, float64(s.noteInv[doc])/c // unit vectors
		for _, r := range s.docAccs[s.docAccOff[doc]:s.docAccOff[doc+1]] {
			accW[r.id()] += sign * ai * float64(r.strength())
		}
		for _, r := range s.docNotes[s.docNoteOff[doc]:s.docNoteOff[doc+1]] {
			noteW[r.id()] += sign * ni * layerWeight(r.layer()) * float64(s.noteW[r.id()])
		}
	}
	for _, d := range liked {
		add(d, 1)
	}
	for _, d := range disliked {
		add(d, -dislikeWeight)
	}
	var na, nn float64
	dotA, dotN := sc.dotA, sc.dotN
	accW, noteW = strongest(accW, tasteAccords), strongest(noteW, tasteNotes)
	for id, w := range accW {
		na += w * w
		w32 := float32(w)
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			dotA[p>>8] += w32 * float32(p&0xff)
		}
	}
	for id, w := range noteW {
		nn += w * w
		idf := s.noteW[id]
		var lw [4]float32 // w times the note's rarity and each layer's weight
		for l := range lw {
			lw[l] = float32(w) * idf * float32(layerWeight(uint8(l)))
		}
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			dotN[p>>2] += lw[p&3]
		}
	}
	wa, wn := ranking.SimilarityWeights(na > 0, nn > 0)
	if na > 0 {
		fa = float32(wa / math.Sqrt(na))
	}
	if nn > 0 {
		fn = float32(wn / math.Sqrt(nn))
	}
	return fa, fn
}

// capBrands orders ranked (best first) into pages of limit with at most
// half a page (at least one) of one brand: a perfume over its brand's
// share of the page being filled waits, first in line, for the next. When
// only waiting perfumes remain they fill the pages as they come.
func capBrands(ranked []keyed, limit int, brand func(uint32) uint32) []keyed {
	most := max(limit/2, 1)
	out := make([]keyed, 0, len(ranked))
	var waiting []keyed
	next := 0
	for next < len(ranked) || len(waiting) > 0 {
		count := map[uint32]int{}
		start := len(out)
		var still []keyed
		take := func(kd keyed) {
			if len(out)-start < limit && count[brand(kd.doc)] < most {
				count[brand(kd.doc)]++
				out = append(out, kd)
				return
			}
			still = append(still, kd)
		}
		for _, kd := range waiting {
			take(kd)
		}
		for next < len(ranked) && len(out)-start < limit {
			take(ranked[next])
			next++
		}
		if len(out) == start { // only one brand waits: no page can hold less
			out = append(out, still...)
			break
		}
		waiting = still
	}
	return out
}

// addReasons sets what each item shares with each liked perfume, the
// liked perfumes sharing the most first, at most reasonsShown.
func (ix *Index) addReasons(items []Recommended, liked []uint32) {
	if len(items) == 0 {
		return
	}
	out := make([]Scored, len(items))
	for i := range items {
		out[i] = Scored{Entry: items[i].Entry}
	}
	for _, l := range liked {
		ix.fillShared(out, l, func(i int) uint32 { d, _ := ix.Pos(out[i].Entry); return uint32(d) })
		for i := range items {
			if n := out[i].SharedAccords.Len() + len(out[i].SharedNotes); n > 0 {
				items[i].Reasons = append(items[i].Reasons, Reason{Liked: &ix.entries[l], Accords: out[i].SharedAccords, Notes: out[i].SharedNotes})
			}
		}
	}
	for i := range items {
		rs := items[i].Reasons
		slices.SortStableFunc(rs, func(a, b Reason) int {
			return (b.Accords.Len() + len(b.Notes)) - (a.Accords.Len() + len(a.Notes))
		})
		if rs == nil {
			rs = []Reason{}
		}
		items[i].Reasons = rs[:min(len(rs), reasonsShown)]
	}
}

// String names a reason for logs and tests: "Aventus: woody, fruity; Pineapple".
func (r Reason) String() string {
	var b strings.Builder
	b.WriteString(r.Liked.Name())
	b.WriteString(": ")
	for i := range r.Accords.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Accords.At(i).Name)
	}
	b.WriteString("; ")
	b.WriteString(strings.Join(r.Notes, ", "))
	return b.String()
}

// strongest returns the n weights of w largest in size (ties: the lower
// id), all of them when there are no more than n.
func strongest(w map[uint32]float64, n int) map[uint32]float64 {
	if len(w) <= n {
		return w
	}
	ids := make([]uint32, 0, len(w))
	for id := range w {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int {
		if c := cmp.Compare(math.Abs(w[b]), math.Abs(w[a])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make(map[uint32]float64, n)
	for _, id := range ids[:n] {
		out[id] = w[id]
	}
	return out
}
