package index

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/search"
)

// suggestions is how many "did you mean" names an error offers.
const suggestions = 3

// resolved is a match query with names turned into ids.
type resolved struct {
	accIDs   []uint32
	accWant  []float64
	noteIDs  []uint32
	need     uint16 // the profile.has bits the filters ask for, all of them
	shares   shares
	echoAccs []AccordWant
	echoNote []string
}

// Match finds perfumes fitting a profile, best first, one page of them.
//
// Gender, Season and Time are hard filters, combined with AND: Season keeps
// perfumes whose highest-voted season it is (ties count for each), Time
// those where it has at least half the votes. Accords and notes are soft:
// a perfume must have at least one of them to appear, and its matchScore
// is 100 times
//
//	(Σ accords search.AccordFit(wanted, its strength) + Σ notes it has) / (accords + notes asked)
//
// AccordFit is 1 − |strength − wanted| / 200 for an accord the perfume has
// (its strength 0–100, the perfume's strongest accord being 100) and 0 for
// one it lacks; a note counts 1 when the perfume has it in any layer. So
// accords and notes combine as one list of wishes, each weighing the same:
// an accord at the wanted strength equals a note had, and a perfume
// fulfilling every wish scores 100. An accord asked at 40 prefers perfumes
// where it is about 40 (fit 1) over ones where it dominates at 100 (fit
// 0.7), and any perfume having it over one lacking it. With neither
// accords nor notes the filters alone select, ordered by the perfume's
// share of the asked season and time (their mean; 100 when neither is
// asked), which is also the score. Ties go to the more rated. Unknown
// names give catalog.ParamErrors (parameters "accords", "notes", "gender",
// "season", "time") with suggestions.
func (ix *Index) Match(q MatchQuery) (MatchResult, error) {
	r, err := ix.resolve(q)
	if err != nil {
		return MatchResult{}, err
	}
	k, from, p, l := paging(q.Page, q.Limit)
	res := MatchResult{Page: p, Limit: l, Accords: r.echoAccs, Notes: r.echoNote, Items: []Scored{}}
	top := newTopK(k)
	// Every perfume passing is counted, but only one scoring at least the
	// heap's floor can enter it, so only those get a key (see topK.floor).
	if len(r.accIDs)+len(r.noteIDs) == 0 {
		res.Total = ix.matchFilters(r.need, r.shares, top)
	} else {
		s := ix.sim
		sc := s.get(len(ix.entries))
		defer s.put(sc)
		s.scoreWants(&r, sc)
		n := float32(len(r.accIDs) + len(r.noteIDs))
		// Re-sliced to one length, so the loop needs no bounds checks.
		dotA := sc.dotA
		dotN, profiles := sc.dotN[:len(dotA)], ix.profiles[:len(dotA)]
		need, total := r.need, 0
		over := sumOver(below32(top.floor()), n)
		for d, sum := range dotA {
			// Whether a perfume passes is a coin toss the branch predictor
			// loses, so it is counted without a branch (the ifs compile to
			// conditional moves); the branch taken is on the sum, rarely
			// over once the heap is full.
			pass := 0
			if dotN[d] > 0 {
				pass = 1
			}
			if profiles[d].has&need != need {
				pass = 0
			}
			total += pass
			if sum > over && pass != 0 {
				doc := uint32(d)
				top.push(scoreKey(float64(sum/n))|ix.popKey(doc), doc)
				over = sumOver(below32(top.floor()), n)
			}
		}
		res.Total = total
	}
	res.Pages = pages(res.Total, l)
	ranked := top.sorted()
	if from < len(ranked) {
		for _, kd := range ranked[from:] {
			res.Items = append(res.Items, Scored{
				Entry: &ix.entries[kd.doc], Score: search.Score(keyScore(kd.key)),
				SharedAccords: ix.sharedAccords(kd.doc, r.accIDs), SharedNotes: ix.sharedNotes(kd.doc, r.noteIDs),
			})
		}
	}
	return res, nil
}

// sumOver is the largest float32 sum whose score sum/n is at most floor:
// float32 division rounds monotonically, so a sum scores above floor
// exactly when it is above sumOver, and Match's scan divides only the
// sums that enter the heap. n is at least 1.
func sumOver(floor, n float32) float32 {
	x := floor * n // within an ulp or two of the answer
	for x/n > floor {
		x = math.Nextafter32(x, float32(math.Inf(-1)))
	}
	for y := math.Nextafter32(x, float32(math.Inf(1))); y/n <= floor; y = math.Nextafter32(y, float32(math.Inf(1))) {
		x = y
	}
	return x
}

// scoreWants adds up, in dotA, each perfume's fit to the wanted accords
// and notes, and counts in dotN how many of them it has, walking only
// their postings.
func (s *simIndex) scoreWants(r *resolved, sc *simScratch) {
	dotA := sc.dotA
	dotN := sc.dotN[:len(dotA)] // one length: one bounds check a posting
	for i, id := range r.accIDs {
		var fit [256]float32 // fit by strength, computed once per accord
		for st := range fit {
			fit[st] = float32(search.AccordFit(r.accWant[i], float64(st)))
		}
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			dotA[p>>8] += fit[p&0xff]
			dotN[p>>8]++
		}
	}
	for _, id := range r.noteIDs {
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			dotA[p>>2]++
			dotN[p>>2]++
		}
	}
}

// profile is what the match filters read of a perfume, packed so a scan
// of the whole catalogue stays in cache: shares are in tenths (0–1000).
type profile struct {
	// has holds the filters' answers as bits, so that a query's filters
	// are one mask (resolved.need) and a test is an AND, not string
	// comparisons per perfume: bit i (0–3) says season i is (one of) the
	// highest-voted, then hasDay, hasNight and the gender bits.
	has    uint16
	season [4]uint16
	day    uint16
	night  uint16
}

// Bits of profile.has above the four seasons'.
const (
	hasDay uint16 = 1 << (4 + iota) // at least half the day/night votes
	hasNight
	hasMasculine
	hasFeminine
	hasUnisex
)

// genderBit is the profile.has bit of a gender, 0 for one the catalogue
// does not know (which then matches no gender filter).
func genderBit(g catalog.Gender) uint16 {
	switch g {
	case catalog.Masculine:
		return hasMasculine
	case catalog.Feminine:
		return hasFeminine
	case catalog.Unisex:
		return hasUnisex
	}
	return 0
}

// seasonIndex is a season's place in profile.season, -1 if unknown.
func seasonIndex(name string) int {
	switch name {
	case "winter":
		return 0
	case "spring":
		return 1
	case "summer":
		return 2
	case "fall":
		return 3
	}
	return -1
}

func makeProfile(e *Entry) profile {
	s := e.Seasons
	p := profile{has: genderBit(e.Gender()), day: tenths(e.DayNight.Day), night: tenths(e.DayNight.Night)}
	raw := [4]float64{s.Winter, s.Spring, s.Summer, s.Fall}
	top := max(raw[0], raw[1], raw[2], raw[3])
	for i, v := range raw {
		p.season[i] = tenths(v)
		if v == top && v > 0 {
			p.has |= 1 << i
		}
	}
	if p.day >= 500 {
		p.has |= hasDay
	}
	if p.night >= 500 {
		p.has |= hasNight
	}
	return p
}

// tenths truncates a share to tenths, so "at least 50" stays exact (the
// epsilon forgives scaling errors such as 0.5·100 = 49.999…).
func tenths(v float64) uint16 { return uint16(min(max(v, 0), 100)*10 + 1e-6) }

// matchFilters pushes, by fit, the perfumes passing the hard filters
// (having every bit of need; the query has neither accords nor notes) and
// counts them. It walks the
// profiles in document order, so they stream through the cache; the keys
// make any order give the same list.
func (ix *Index) matchFilters(need uint16, sh shares, top *topK) int {
	total := 0
	least := sh.least(top.floor())
	for d := range ix.profiles {
		p := &ix.profiles[d]
		if p.has&need != need {
			continue
		}
		total++
		if sum := sh.sum(p); sum >= least {
			doc := uint32(d)
			top.push(scoreKey(sh.fit(sum))|ix.popKey(doc), doc)
			least = sh.least(top.floor())
		}
	}
	return total
}

// shares is what the fit of filters alone averages: the asked season's
// and time's shares of a perfume. A field is 1 for a share asked and 0
// for one not, at is the place of the asked season (0 when none).
type shares struct{ season, day, night, at int }

// sum is the sum of a perfume's asked shares, in tenths; it is computed
// without a branch, so a scan of every perfume keeps its pace.
func (s shares) sum(p *profile) int {
	return int(p.season[s.at])*s.season + int(p.day)*s.day + int(p.night)*s.night
}

// fit is the mean share (0–1) of the asked season and time, from their
// sum; 1 when neither is asked.
func (s shares) fit(sum int) float64 {
	n := s.season + s.day + s.night
	if n == 0 {
		return 1
	}
	return float64(sum) / float64(n) / 1000
}

// least is the least sum whose fit is at least floor (above any sum when
// none is): fit rounds monotonically, so the scan compares integers.
func (s shares) least(floor float64) int {
	most := 1000 * (s.season + s.day + s.night)
	return sort.Search(most+1, func(sum int) bool { return s.fit(sum) >= floor })
}

// resolve checks a match query and turns its names into ids.
func (ix *Index) resolve(q MatchQuery) (resolved, error) {
	r := resolved{echoAccs: []AccordWant{}, echoNote: []string{}}
	gender, season, time := catalog.Gender(strings.ToLower(string(q.Gender))), -1, strings.ToLower(q.Time)
	var errs catalog.ParamErrors
	if gender != "" && !gender.Valid() {
		errs = append(errs, &catalog.ParamError{Parameter: "gender", Message: fmt.Sprintf("unknown gender %q; use masculine, feminine or unisex", q.Gender)})
	}
	if q.Season != "" {
		if season = seasonIndex(strings.ToLower(q.Season)); season < 0 {
			errs = append(errs, &catalog.ParamError{Parameter: "season", Message: fmt.Sprintf("unknown season %q; use winter, spring, summer or fall", q.Season)})
		}
	}
	if time != "" && time != "day" && time != "night" {
		errs = append(errs, &catalog.ParamError{Parameter: "time", Message: fmt.Sprintf("unknown time %q; use day or night", q.Time)})
	}
	for _, a := range q.Accords {
		id, ok := ix.accordIDs[search.Fold(a.Name)]
		switch {
		case !ok:
			errs = append(errs, unknownName("accords", "accord", a.Name, ix.AccordNames()))
		case !containsID(r.accIDs, id):
			r.accIDs = append(r.accIDs, id)
			r.accWant = append(r.accWant, a.Strength)
			r.echoAccs = append(r.echoAccs, AccordWant{Name: ix.accordName[id], Strength: a.Strength})
		}
	}
	for _, name := range q.Notes {
		id, ok := ix.noteIDs[search.Fold(name)]
		switch {
		case !ok:
			errs = append(errs, unknownName("notes", "note", name, ix.NoteNames()))
		case !containsID(r.noteIDs, id):
			r.noteIDs = append(r.noteIDs, id)
			r.echoNote = append(r.echoNote, ix.noteName[id])
		}
	}
	r.need = genderBit(gender)
	if season >= 0 {
		r.need |= 1 << season
		r.shares.season, r.shares.at = 1, season
	}
	switch time {
	case "day":
		r.need, r.shares.day = r.need|hasDay, 1
	case "night":
		r.need, r.shares.night = r.need|hasNight, 1
	}
	return r, errs.Err()
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// unknownName is the error of an accord or note the catalogue lacks, with
// the closest known names.
func unknownName(param, kind, name string, known []string) *catalog.ParamError {
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if sug := search.Suggest(name, known, suggestions); len(sug) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteList(sug))
	}
	return &catalog.ParamError{Parameter: param, Message: msg}
}

// quoteList writes "a", "b" or "c".
func quoteList(xs []string) string {
	var b strings.Builder
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", x)
	}
	return b.String()
}
