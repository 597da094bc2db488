package index

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// The tests in this file check the fast scans of Similar, Dupes and Match
// (heap floors, stretches between curated partners, filter bits) against
// plain readings of their contracts: every perfume scored the obvious
// way, all of them sorted, the list cut. The answers must be identical,
// scores and shared lists included.

// refRanker holds the reference's working memory across sources.
type refRanker struct {
	ix  *Index
	sc  simScratch
	all []uint64 // keys; a key's lower half gives its document (popKey)
}

func newRefRanker(ix *Index) *refRanker {
	n := len(ix.entries)
	return &refRanker{ix: ix, sc: simScratch{dotA: make([]float32, n), dotN: make([]float32, n)}}
}

// ranked is the first most perfumes Similar (maxTier 0) or Dupes would
// list for src, best first, the line cap applied: Similar's answer for a
// limit up to most is its start.
func (rr *refRanker) ranked(src uint32, maxTier uint8, most int) []keyed {
	ix, s, sc := rr.ix, rr.ix.sim, &rr.sc
	clear(sc.dotA)
	clear(sc.dotN)
	s.accumulate(src, sc)
	wa, wn := ranking.SimilarityWeights(s.accInv[src] > 0, s.noteInv[src] > 0)
	c := confidence(ix.entries[src].RatingCount)
	fa, fn := float32(wa)*s.accInv[src]/c, float32(wn)*s.noteInv[src]/c
	partners := s.curated[src]
	all := rr.all[:0]
	for d := range sc.dotA {
		doc := uint32(d)
		curated := slices.Contains(partners, doc)
		a, dn := sc.dotA[d], sc.dotN[d]
		switch {
		case doc == src, a == 0 && dn == 0 && !curated:
			continue
		case maxTier > 0 && (s.tier[doc] == 0 || s.tier[doc] >= maxTier):
			continue
		}
		sim := float64(min(max(fa*a*s.accInv[doc]+fn*dn*s.noteInv[doc], 0), 1))
		if curated {
			sim = ranking.Curated(sim)
		}
		if sim > 0 {
			all = append(all, scoreKey(sim)|ix.popKey(doc))
		}
	}
	rr.all = all
	slices.Sort(all)
	var out []keyed
	lines := map[uint64]int{}
	for i := len(all) - 1; i >= 0 && len(out) < most; i-- {
		key := all[i]
		doc := ix.order[uint64(len(ix.order))-key&(1<<32-1)]
		if l := ix.line[doc]; lines[l] < ranking.MaxPerLine {
			lines[l]++
			out = append(out, keyed{key, doc})
		}
	}
	return out
}

// refScored turns the first limit of ranked into Similar's items.
func refScored(ix *Index, src uint32, ranked []keyed, limit int) []Scored {
	out := []Scored{}
	accs, notes := refAccIDs(ix.sim, src), refNoteIDs(ix.sim, src)
	for _, r := range ranked[:min(limit, len(ranked))] {
		out = append(out, Scored{
			Entry: &ix.entries[r.doc], Score: ranking.Score(keyScore(r.key)),
			SharedAccords: refSharedAccords(ix, r.doc, accs), SharedNotes: refSharedNotes(ix, r.doc, notes),
		})
	}
	return out
}

// refSharedAccords lists doc's accords (with doc's strengths) whose ids
// are in want, strongest first: fillShared's reference, one item at a time.
func refSharedAccords(ix *Index, doc uint32, want []uint32) AccordList {
	accs := ix.entries[doc].Accords()
	out := AccordList{names: accs.names, ids: []uint32{}, strengths: []float64{}}
	for _, r := range ix.sim.docAccs[ix.sim.docAccOff[doc]:ix.sim.docAccOff[doc+1]] {
		if slices.Contains(want, r.id()) {
			out.ids = append(out.ids, accs.ids[r.pos()])
			out.strengths = append(out.strengths, accs.strengths[r.pos()])
		}
	}
	return out
}

// refSharedNotes lists doc's notes whose ids are in want, in pyramid
// order, by their canonical names.
func refSharedNotes(ix *Index, doc uint32, want []uint32) []string {
	out := []string{}
	for _, r := range ix.sim.docNotes[ix.sim.docNoteOff[doc]:ix.sim.docNoteOff[doc+1]] {
		if slices.Contains(want, r.id()) {
			out = append(out, ix.noteName[r.id()])
		}
	}
	return out
}

func refAccIDs(s *simIndex, doc uint32) []uint32 {
	var out []uint32
	for _, r := range s.docAccs[s.docAccOff[doc]:s.docAccOff[doc+1]] {
		out = append(out, r.id())
	}
	return out
}

func refNoteIDs(s *simIndex, doc uint32) []uint32 {
	var out []uint32
	for _, r := range s.docNotes[s.docNoteOff[doc]:s.docNoteOff[doc+1]] {
		out = append(out, r.id())
	}
	return out
}

// checkSimilarRef compares Similar and Dupes of src with the reference.
func checkSimilarRef(t *testing.T, rr *refRanker, src uint32, simLimits, dupeLimits []int) {
	t.Helper()
	ix := rr.ix
	slug := ix.entries[src].Slug()
	ranked := rr.ranked(src, 0, slices.Max(simLimits))
	for _, limit := range simLimits {
		_, got, err := ix.Similar(slug, limit)
		if want := refScored(ix, src, ranked, limit); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Similar(%s, %d) = %q, %v\nwant %q", slug, limit, scoredNames(got), err, scoredNames(want))
		}
	}
	tier := ix.sim.tier[src]
	if tier != 0 {
		ranked = rr.ranked(src, tier, slices.Max(dupeLimits))
	}
	for _, limit := range dupeLimits {
		want := []Scored{}
		if tier != 0 {
			want = refScored(ix, src, ranked, limit)
		}
		if _, got, err := ix.Dupes(slug, limit); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Dupes(%s, %d) = %q, %v\nwant %q", slug, limit, scoredNames(got), err, scoredNames(want))
		}
	}
}

// TestSimilarMatchesReference runs every 50th perfume of the real
// catalogue, with curated pairs added so that sources have partners on
// either side of them.
func TestSimilarMatchesReference(t *testing.T) {
	ps, ref := realCatalogue(t)
	var pairs [][2]string
	for i := 0; i < len(ps); i += 50 {
		for _, j := range []int{i + 7919, i - 1234, i + 3} {
			if j >= 0 && j < len(ps) {
				pairs = append(pairs, [2]string{ps[i].Slug, ps[j].Slug})
			}
		}
	}
	ix := Build(ps, Options{AccordColor: ref.Color, Curated: pairs})
	step := 50
	if testing.Short() || racedetect.Enabled {
		step = 2000
	}
	rr := newRefRanker(ix)
	for src := 0; src < len(ix.entries); src += step {
		checkSimilarRef(t, rr, uint32(src), []int{1, 10, 50}, []int{20})
	}
}

// TestSimilarLineCapMatchesReference: a source whose own line fills far
// more than the first ranking's few times limit, so the line cap leaves
// the list short and the ranking runs again with more kept.
func TestSimilarLineCapMatchesReference(t *testing.T) {
	accords := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "amber", Strength: 60}}
	tiers := []catalog.PriceTier{catalog.TierLuxury, catalog.TierPremium, catalog.TierAffordable, catalog.TierBudget, ""}
	var ps []catalog.Perfume
	add := func(name, brand string, rc int, tier catalog.PriceTier, acc []catalog.AccordStrength) {
		ps = append(ps, catalog.Perfume{ID: int64(len(ps) + 1), Name: name, Brand: brand, Slug: slug(brand) + "-" + slug(name),
			Gender: catalog.Masculine, RatingCount: rc, PriceTier: tier, Accords: clone2(acc)})
	}
	add("Line", "House", 9000, catalog.TierLuxury, accords)
	for i := range 60 {
		add(fmt.Sprintf("Line %s", madeUpWord(i)), "House", 8000-i, tiers[1+i%4], accords)
	}
	for i := range 30 {
		acc := []catalog.AccordStrength{{Name: "woody", Strength: 100}, {Name: "citrus", Strength: float64(10 + 3*i)}}
		add(madeUpWord(100+i), fmt.Sprintf("Brand %d", i), 5000-i, tiers[i%5], acc)
	}
	ix := Build(ps, Options{Curated: [][2]string{{"house-line", ps[len(ps)-1].Slug}}})
	rr := newRefRanker(ix)
	for src := range ix.entries {
		checkSimilarRef(t, rr, uint32(src), []int{1, 3, 5, 10, 20, 100}, []int{1, 5, 20})
	}
}

// refMatch is Match as its contract reads: the filters from the entries
// themselves, every perfume's fit summed in the order of the wishes.
func refMatch(ix *Index, q MatchQuery) (MatchResult, error) {
	r, err := ix.resolve(q)
	if err != nil {
		return MatchResult{}, err
	}
	keep, from, p, l := paging(q.Page, q.Limit)
	res := MatchResult{Page: p, Limit: l, Accords: r.echoAccs, Notes: r.echoNote, Items: []Scored{}}
	wishes := len(r.accIDs) + len(r.noteIDs)
	// The filters as the query states them (resolve has checked them).
	gender, season, time := catalog.Gender(strings.ToLower(string(q.Gender))), seasonIndex(strings.ToLower(q.Season)), strings.ToLower(q.Time)
	var all []keyed
	for d := range ix.entries {
		doc, e := uint32(d), &ix.entries[d]
		raw := [4]float64{e.Seasons.Winter, e.Seasons.Spring, e.Seasons.Summer, e.Seasons.Fall}
		top := max(raw[0], raw[1], raw[2], raw[3])
		switch {
		case gender != "" && e.Gender() != gender,
			season >= 0 && !(raw[season] == top && top > 0),
			time == "day" && tenths(e.DayNight.Day) < 500,
			time == "night" && tenths(e.DayNight.Night) < 500:
			continue
		}
		var score float64
		if wishes == 0 {
			sum, n := 0, 0
			if season >= 0 {
				sum, n = sum+int(tenths(raw[season])), n+1
			}
			switch time {
			case "day":
				sum, n = sum+int(tenths(e.DayNight.Day)), n+1
			case "night":
				sum, n = sum+int(tenths(e.DayNight.Night)), n+1
			}
			score = 1
			if n > 0 {
				score = float64(sum) / float64(n) / 1000
			}
		} else {
			var sum float32
			had := 0
			for i, id := range r.accIDs {
				for _, a := range ix.sim.docAccs[ix.sim.docAccOff[doc]:ix.sim.docAccOff[doc+1]] {
					if a.id() == id {
						sum += float32(ranking.AccordFit(r.accWant[i], float64(a.strength())))
						had++
					}
				}
			}
			for _, id := range r.noteIDs {
				for _, nr := range ix.sim.docNotes[ix.sim.docNoteOff[doc]:ix.sim.docNoteOff[doc+1]] {
					if nr.id() == id {
						sum++
						had++
					}
				}
			}
			if had == 0 {
				continue
			}
			score = float64(sum / float32(wishes))
		}
		res.Total++
		all = append(all, keyed{scoreKey(score) | ix.popKey(doc), doc})
	}
	slices.SortFunc(all, func(a, b keyed) int { return cmp.Compare(b.key, a.key) })
	res.Pages = pages(res.Total, l)
	all = all[:min(keep, len(all))]
	for _, kd := range all[min(from, len(all)):] {
		res.Items = append(res.Items, Scored{
			Entry: &ix.entries[kd.doc], Score: ranking.Score(keyScore(kd.key)),
		})
	}
	return res, nil
}

// TestMatchMatchesReference runs queries mixing accords, notes and every
// filter (in any letter case), pages deep and past the end.
func TestMatchMatchesReference(t *testing.T) {
	ix := realIndex(t)
	accs, notes := ix.AccordNames(), ix.NoteNames()
	genders := []catalog.Gender{"", "masculine", "feminine", "unisex", "Feminine"}
	seasons := []string{"", "winter", "spring", "summer", "Fall"}
	times := []string{"", "day", "night", "NIGHT"}
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := range n {
		q := MatchQuery{Gender: genders[i%5], Season: seasons[(i/5)%5], Time: times[i%4],
			Page: 1 + i%4, Limit: []int{1, 5, 20, 100}[i%4]}
		switch i % 6 {
		case 0: // filters alone
		case 1:
			q.Notes = []string{notes[(i*13)%len(notes)]}
		default:
			q.Accords = []AccordWant{{accs[i%len(accs)], float64(i % 101)}, {accs[(i*7)%len(accs)], 100}}
			if i%3 == 0 {
				q.Notes = []string{notes[(i*13)%len(notes)], notes[(i*29)%len(notes)]}
			}
		}
		if i%17 == 0 {
			q.Page = 1 << 29 // past any catalogue: nothing kept
		}
		got, gerr := ix.Match(q)
		want, werr := refMatch(ix, q)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("Match(%+v) = %q of %d, %v\nwant %q of %d, %v", q,
				scoredNames(got.Items), got.Total, gerr, scoredNames(want.Items), want.Total, werr)
		}
	}
}

// TestFloors checks the exact thresholds the scans compare with, on
// values far more varied (and closer to the edges) than a catalogue's.
func TestFloors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	up, down := float32(math.Inf(1)), float32(math.Inf(-1))
	near := func(x float32) []float32 { // x and its neighbours
		out := []float32{x}
		for lo, hi, i := x, x, 0; i < 3; i++ {
			lo, hi = math.Nextafter32(lo, down), math.Nextafter32(hi, up)
			out = append(out, lo, hi)
		}
		return out
	}
	// below32: x < f exactly when x <= below32(f).
	fs := []float64{-1, 0, 1, math.Inf(1), 1.0 / (1 << 30), 0.1, 2.0 / 3}
	for range 2000 {
		f := rng.Float64()
		fs = append(fs, f, float64(float32(f)), math.Nextafter(float64(float32(f)), 2), math.Nextafter(float64(float32(f)), -1))
	}
	for _, f := range fs {
		b := below32(f)
		for _, x := range near(float32(f)) {
			if (float64(x) < f) != (x <= b) {
				t.Fatalf("below32(%v) = %v, wrong for %v", f, b, x)
			}
		}
	}
	// topK.floor: a score below it never enters, whatever its popularity.
	for range 200 {
		top := newTopK(1 + rng.IntN(20))
		for range rng.IntN(60) {
			top.push(scoreKey(float64(rng.Float32()))|uint64(rng.Uint32()), 0)
		}
		f := top.floor()
		for range 50 {
			s := float64(rng.Float32())
			if s < f && len(top.h) > 0 && scoreKey(s)|(1<<32-1) > top.h[0].key {
				t.Fatalf("score %v under floor %v beats the least kept key", s, f)
			}
		}
	}
	if f := newTopK(0).floor(); !math.IsInf(f, 1) {
		t.Errorf("floor of k 0 = %v", f)
	}
	// sumOver: sum/n > floor exactly when sum > sumOver(floor, n).
	floors := []float32{below32(-1), 0, 1, math.MaxFloat32}
	for range 2000 {
		floors = append(floors, rng.Float32())
	}
	for _, floor := range floors {
		for n := float32(1); n <= 7; n++ {
			over := sumOver(floor, n)
			for _, sum := range near(floor * n) {
				if (sum/n > floor) != (sum > over) {
					t.Fatalf("sumOver(%v, %v) = %v, wrong for %v", floor, n, over, sum)
				}
			}
		}
	}
	// shares.least: fit(sum) >= floor exactly when sum >= least(floor).
	for _, sh := range []shares{{}, {season: 1, at: 2}, {day: 1}, {season: 1, night: 1}} {
		for _, floor := range []float64{-1, 0, 0.5, 1, math.Inf(1), rng.Float64(), rng.Float64(), 0.4995} {
			least := sh.least(floor)
			for sum := range 1000*(sh.season+sh.day+sh.night) + 1 {
				if (sh.fit(sum) >= floor) != (sum >= least) {
					t.Fatalf("%+v: least(%v) = %d, wrong for %d", sh, floor, least, sum)
				}
			}
		}
	}
}

// TestFillSharedLongLists: perfumes with long lists of accords and notes
// (up to 108 and 140, lying on several cache lines, of which fillShared
// reads the first and last ahead) share the accords and notes the
// reference says, in its order, whichever perfume is the source.
func TestFillSharedLongLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var ps []catalog.Perfume
	for i := range 12 {
		p := catalog.Perfume{ID: int64(i + 1), Name: fmt.Sprintf("Long %d", i), Brand: "House",
			Slug: fmt.Sprintf("house-long-%d", i), Gender: catalog.Unisex, RatingCount: 100 + i}
		for range 20 + i*8 { // 20 to 108 accords, drawn from 150
			p.Accords = append(p.Accords, catalog.AccordStrength{Name: fmt.Sprintf("accord %d", rng.IntN(150)), Strength: float64(rng.IntN(101))})
		}
		layers := []*[]string{&p.Notes.Top, &p.Notes.Middle, &p.Notes.Base, &p.Notes.Unplaced}
		for n := range 30 + i*10 { // 30 to 140 notes, drawn from 200
			l := layers[n%4]
			*l = append(*l, fmt.Sprintf("Note %d", rng.IntN(200)))
		}
		ps = append(ps, p)
	}
	ix := Build(ps, Options{})
	for src := range uint32(len(ps)) {
		var out []Scored
		var docs []uint32
		for d := range uint32(len(ps)) {
			if d != src {
				out = append(out, Scored{Entry: &ix.entries[d]})
				docs = append(docs, d)
			}
		}
		ix.fillShared(out, src, func(i int) uint32 { return docs[i] })
		accs, notes := refAccIDs(ix.sim, src), refNoteIDs(ix.sim, src)
		long := false
		for i, d := range docs {
			wantA, wantN := refSharedAccords(ix, d, accs), refSharedNotes(ix, d, notes)
			if !reflect.DeepEqual(out[i].SharedAccords, wantA) || !reflect.DeepEqual(out[i].SharedNotes, wantN) {
				t.Fatalf("source %d, item %d: shared %v %v, want %v %v", src, d, out[i].SharedAccords, out[i].SharedNotes, wantA, wantN)
			}
			long = long || len(wantN) > 0 && ix.sim.docNoteOff[d+1]-ix.sim.docNoteOff[d] > 64
		}
		if src > 8 && !long {
			t.Fatalf("source %d: no item sharing notes has over 64 of them", src) // the catalogue is not what the test means
		}
	}
}
