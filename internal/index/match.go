package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
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
		res.Total = ix.matchWishes(&r, top)
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

// matchBlock is how many documents matchWishes adds up at a time: few
// enough that their sums and marks (10 KB) stay in the L1 cache while
// every wish's postings stream through, many enough that the work per
// block and wish is nothing beside its postings.
const matchBlock = 1 << 11

// wishSums are the sums of one block of documents: each one's fit to the
// wishes so far, and a mark (1) on each having one of them. A mark is a
// byte, not a bit, so that setting it is a store: a bit is a load and a
// store, and the postings of one word's documents would wait on each
// other. Eight marks read as a word are counted by a popcount.
type wishSums struct {
	sum  [matchBlock]float32
	seen [matchBlock]uint8
}

// wish is an asked accord or note as matchWishes walks it: its postings
// not yet added (documents ascending), those of the current block, and
// for an accord its fit by strength (a note had adds 1).
type wish struct {
	post, block []uint32
	shift       uint // of a posting's document: 8 for an accord, 2 for a note
	fit         [256]float32
}

// matchWishes pushes, by score, the perfumes having at least one of r's
// accords or notes and passing its filters, and counts them.
//
// The answer's exact Total asks for every posting of every wish to be
// read, however early a bound could tell that no more perfume can enter
// the page (as WAND or MaxScore would): the perfumes having a wish must
// all be found to be counted, and adding a fit costs little beside
// finding one. So the postings are walked whole, a block of documents at
// a time, each wish in the order asked (the float32 sums are those of
// adding every perfume's fits in that order), into sums and marks that
// stay in the L1 cache; the block's perfumes are then counted and tested
// against the heap's floor (dense, or sparse when the block has few
// postings). Blocks no wish has a document in are skipped, so a rare note
// costs its postings, not the catalogue.
func (ix *Index) matchWishes(r *resolved, top *topK) int {
	s := ix.sim
	ws := make([]wish, 0, len(r.accIDs)+len(r.noteIDs))
	for i, id := range r.accIDs {
		w := wish{post: s.accPost[s.accOff[id]:s.accOff[id+1]], shift: 8}
		for st := range w.fit {
			w.fit[st] = float32(search.AccordFit(r.accWant[i], float64(st)))
		}
		ws = append(ws, w)
	}
	for _, id := range r.noteIDs {
		ws = append(ws, wish{post: s.notePost[s.noteOff[id]:s.noteOff[id+1]], shift: 2})
	}
	m := matchScan{ix: ix, top: top, need: r.need, n: float32(len(ws))}
	m.setOver()
	sums := new(wishSums)
	for {
		next := uint32(math.MaxUint32) // the first document a wish has left
		for i := range ws {
			if w := &ws[i]; len(w.post) > 0 {
				next = min(next, w.post[0]>>w.shift)
			}
		}
		if next == math.MaxUint32 {
			return m.total
		}
		base := next &^ (matchBlock - 1)
		added := 0
		for i := range ws {
			w := &ws[i]
			var n int
			if w.shift == 2 {
				n = addNoteFits(w.post, base+matchBlock, sums)
			} else {
				n = addAccordFits(w.post, base+matchBlock, &w.fit, sums)
			}
			w.block, w.post = w.post[:n], w.post[n:]
			added += n
		}
		if added < matchBlock/8 {
			m.sparse(base, ws, sums)
		} else {
			m.dense(base, sums)
		}
	}
}

// addAccordFits adds to sums the fits of an accord's first postings, those
// of documents below end (all in sums' block), marks their documents, and
// returns how many it added. It and addNoteFits are Match's hot loop: a
// posting is a load, an add and two stores.
func addAccordFits(post []uint32, end uint32, fit *[256]float32, sums *wishSums) int {
	for i, p := range post {
		if p>>8 >= end {
			return i
		}
		d := p >> 8 & (matchBlock - 1)
		sums.sum[d] += fit[uint8(p)]
		sums.seen[d] = 1
	}
	return len(post)
}

// addNoteFits is addAccordFits for a note: 1 for every perfume having it.
func addNoteFits(post []uint32, end uint32, sums *wishSums) int {
	for i, p := range post {
		if p>>2 >= end {
			return i
		}
		d := p >> 2 & (matchBlock - 1)
		sums.sum[d]++
		sums.seen[d] = 1
	}
	return len(post)
}

// matchScan is the ranking of matchWishes.
type matchScan struct {
	ix    *Index
	top   *topK
	need  uint16
	n     float32 // wishes asked
	over  float32 // a sum at most this can't enter top (see sumOver)
	total int
}

func (m *matchScan) setOver() { m.over = sumOver(below32(m.top.floor()), m.n) }

func (m *matchScan) push(sum float32, doc uint32) {
	m.top.push(scoreKey(float64(sum/m.n))|m.ix.popKey(doc), doc)
	m.setOver()
}

// dense counts and pushes the perfumes marked in sums (the block from
// base), reading every document of the block in turn, and leaves sums
// zero for the next. That costs a block's length, not its postings, but
// as the scan in document order has no branch that the branch predictor
// could miss, it is the faster wherever postings are not rare.
//
// Without filters (and once the floor is not negative, so that an
// unmarked document's sum, 0, is never over it) the count is a popcount
// of the marks and the test is on the sums alone; with them a perfume is
// counted and tested when marked and passing.
func (m *matchScan) dense(base uint32, sums *wishSums) {
	has := m.ix.has[base:min(int(base)+matchBlock, len(m.ix.has))]
	sum, seen := sums.sum[:len(has)], sums.seen[:len(has)]
	if m.need == 0 && m.over >= 0 {
		for i := 0; i < matchBlock; i += 8 {
			m.total += bits.OnesCount64(binary.LittleEndian.Uint64(sums.seen[i:]))
		}
		over := m.over
		for d, s := range sum {
			if s > over { // rarely, once the heap is full
				m.push(s, base+uint32(d))
				over = m.over
			}
		}
	} else {
		need, over, total := m.need, m.over, m.total
		for d, s := range sum {
			// Whether a perfume counts is a coin toss the branch
			// predictor would lose, so it is counted without a branch
			// (the ifs compile to conditional moves); the branch taken
			// is on the sum, rarely over once the heap is full.
			pass := int(seen[d])
			if has[d]&need != need {
				pass = 0
			}
			total += pass
			if s > over && pass != 0 {
				m.push(s, base+uint32(d))
				over = m.over
			}
		}
		m.total = total
	}
	clear(sums.sum[:])
	clear(sums.seen[:])
}

// sparse is dense for a block with few postings: it reads only the
// documents the wishes' postings of the block name, and clears only their
// sums and marks. A document named by several wishes is taken once, at
// its first posting (its mark then cleared).
func (m *matchScan) sparse(base uint32, ws []wish, sums *wishSums) {
	has := m.ix.has[base:min(int(base)+matchBlock, len(m.ix.has))]
	for i := range ws {
		for _, p := range ws[i].block {
			d := p >> ws[i].shift & (matchBlock - 1)
			if sums.seen[d] == 0 {
				continue
			}
			s := sums.sum[d]
			sums.seen[d], sums.sum[d] = 0, 0
			if has[d]&m.need != m.need {
				continue
			}
			m.total++
			if s > m.over {
				m.push(s, base+uint32(d))
			}
		}
	}
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
