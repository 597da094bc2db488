package index

import (
	"fmt"
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
	gender   catalog.Gender
	season   int // index into seasons, -1 for any
	time     string
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
	if len(r.accIDs)+len(r.noteIDs) == 0 {
		for _, doc := range ix.order {
			if ix.passes(doc, &r) {
				res.Total++
				top.push(scoreKey(ix.fit(doc, &r))|ix.popKey(doc), doc)
			}
		}
	} else {
		s := ix.sim
		sc := s.get(len(ix.entries))
		defer s.put(sc)
		s.scoreWants(&r, sc)
		n := float32(len(r.accIDs) + len(r.noteIDs))
		for d, score := range sc.dotA {
			if doc := uint32(d); sc.dotN[d] > 0 && ix.passes(doc, &r) {
				res.Total++
				top.push(scoreKey(float64(score/n))|ix.popKey(doc), doc)
			}
		}
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

// scoreWants adds up, in dotA, each perfume's fit to the wanted accords
// and notes, and counts in dotN how many of them it has, walking only
// their postings.
func (s *simIndex) scoreWants(r *resolved, sc *simScratch) {
	for i, id := range r.accIDs {
		var fit [256]float32 // fit by strength, computed once per accord
		for st := range fit {
			fit[st] = float32(search.AccordFit(r.accWant[i], float64(st)))
		}
		for _, p := range s.accPost[s.accOff[id]:s.accOff[id+1]] {
			sc.dotA[p>>8] += fit[p&0xff]
			sc.dotN[p>>8]++
		}
	}
	for _, id := range r.noteIDs {
		for _, p := range s.notePost[s.noteOff[id]:s.noteOff[id+1]] {
			sc.dotA[p>>2]++
			sc.dotN[p>>2]++
		}
	}
}

// profile is what the match filters read of a perfume, packed so a scan
// of the whole catalogue stays in cache: shares are in tenths (0–1000).
type profile struct {
	gender catalog.Gender
	best   uint8 // bit i: season i is (one of) the highest-voted
	season [4]uint16
	day    uint16
	night  uint16
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
	p := profile{gender: e.Gender, day: tenths(e.DayNight.Day), night: tenths(e.DayNight.Night)}
	raw := [4]float64{s.Winter, s.Spring, s.Summer, s.Fall}
	top := max(raw[0], raw[1], raw[2], raw[3])
	for i, v := range raw {
		p.season[i] = tenths(v)
		if v == top && v > 0 {
			p.best |= 1 << i
		}
	}
	return p
}

// tenths truncates a share to tenths, so "at least 50" stays exact (the
// epsilon forgives scaling errors such as 0.5·100 = 49.999…).
func tenths(v float64) uint16 { return uint16(min(max(v, 0), 100)*10 + 1e-6) }

// passes applies the hard filters.
func (ix *Index) passes(doc uint32, r *resolved) bool {
	p := &ix.profiles[doc]
	if r.gender != "" && p.gender != r.gender {
		return false
	}
	if r.season >= 0 && p.best&(1<<r.season) == 0 {
		return false
	}
	switch r.time {
	case "day":
		return p.day >= 500
	case "night":
		return p.night >= 500
	}
	return true
}

// fit is the mean share (0–1) of the asked season and time, 1 when
// neither is asked.
func (ix *Index) fit(doc uint32, r *resolved) float64 {
	p := &ix.profiles[doc]
	sum, n := 0, 0
	if r.season >= 0 {
		sum, n = sum+int(p.season[r.season]), n+1
	}
	switch r.time {
	case "day":
		sum, n = sum+int(p.day), n+1
	case "night":
		sum, n = sum+int(p.night), n+1
	}
	if n == 0 {
		return 1
	}
	return float64(sum) / float64(n) / 1000
}

// resolve checks a match query and turns its names into ids.
func (ix *Index) resolve(q MatchQuery) (resolved, error) {
	r := resolved{gender: catalog.Gender(strings.ToLower(string(q.Gender))), season: -1, time: strings.ToLower(q.Time),
		echoAccs: []AccordWant{}, echoNote: []string{}}
	var errs catalog.ParamErrors
	if r.gender != "" && !r.gender.Valid() {
		errs = append(errs, &catalog.ParamError{Parameter: "gender", Message: fmt.Sprintf("unknown gender %q; use masculine, feminine or unisex", q.Gender)})
	}
	if q.Season != "" {
		if r.season = seasonIndex(strings.ToLower(q.Season)); r.season < 0 {
			errs = append(errs, &catalog.ParamError{Parameter: "season", Message: fmt.Sprintf("unknown season %q; use winter, spring, summer or fall", q.Season)})
		}
	}
	if r.time != "" && r.time != "day" && r.time != "night" {
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
