package evaluation

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/describe"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/search"
)

var (
	//go:embed data/describe.tsv
	describeTSV string
	//go:embed data/recommend.tsv
	recommendTSV string
)

// DiscoveryDepth is how many results a description or a recommendation is
// judged by: the first page a person reads.
const DiscoveryDepth = 10

// Intent is what a description or a taste asks, written as data apart
// from the parser: each need a set of names of which a perfume must have
// one (as an accord or a note named so, or with it as one of its words),
// names it must not have, and a season, time and gender.
type Intent struct {
	Need                 [][]string
	Not                  []string
	Season, Time, Gender string
}

// DescribeCase is a description as people write it, with its intent.
type DescribeCase struct {
	Query  string
	Intent Intent
	Line   int
}

// RecommendCase is a taste: perfumes liked and disliked, and the
// character the liked share.
type RecommendCase struct {
	Liked, Disliked []string
	Intent          Intent
	Line            int
}

// DescribeCases returns the built-in description set (data/describe.tsv).
func DescribeCases() ([]DescribeCase, error) { return ParseDescribeCases(describeTSV) }

// RecommendCases returns the built-in taste set (data/recommend.tsv).
func RecommendCases() ([]RecommendCase, error) { return ParseRecommendCases(recommendTSV) }

// ParseDescribeCases reads the description set format: query, intent.
func ParseDescribeCases(text string) ([]DescribeCase, error) {
	var out []DescribeCase
	err := eachRow(text, 2, func(line int, f []string) error {
		in, err := ParseIntent(f[1])
		if err != nil {
			return err
		}
		if f[0] == "" {
			return fmt.Errorf("empty query")
		}
		out = append(out, DescribeCase{Query: f[0], Intent: in, Line: line})
		return nil
	})
	return out, err
}

// ParseRecommendCases reads the taste set format: liked slugs, intent,
// disliked slugs ("-" for none).
func ParseRecommendCases(text string) ([]RecommendCase, error) {
	var out []RecommendCase
	err := eachRow(text, 3, func(line int, f []string) error {
		in, err := ParseIntent(f[1])
		if err != nil {
			return err
		}
		c := RecommendCase{Liked: strings.Split(f[0], ","), Intent: in, Line: line}
		if f[2] != "-" {
			c.Disliked = strings.Split(f[2], ",")
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// ParseIntent reads "need=a|b; not=c; season=winter; time=day;
// gender=masculine".
func ParseIntent(s string) (Intent, error) {
	var in Intent
	for _, part := range strings.Split(s, ";") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || value == "" {
			return in, fmt.Errorf("intent %q: want key=value", part)
		}
		var alts []string
		for _, a := range strings.Split(value, "|") {
			alts = append(alts, search.Fold(a))
		}
		switch key {
		case "need":
			in.Need = append(in.Need, alts)
		case "not":
			in.Not = append(in.Not, alts...)
		case "season":
			in.Season = value
		case "time":
			in.Time = value
		case "gender":
			in.Gender = value
		default:
			return in, fmt.Errorf("intent: unknown key %q", key)
		}
	}
	return in, nil
}

// Meets reports whether e has what in asks. A season or time is met when
// its share of the votes is the largest or at least 0.8 of it; a gender
// by that gender or unisex.
func (in Intent) Meets(e *index.Entry) bool {
	var names []string
	for _, a := range e.Accords().Slice() {
		names = append(names, " "+search.Fold(a.Name)+" ")
	}
	p := e.Notes().Pyramid()
	for _, n := range slices.Concat(p.Top, p.Middle, p.Base, p.Unplaced) {
		names = append(names, " "+search.Fold(n)+" ")
	}
	has := func(alts []string) bool {
		for _, a := range alts {
			for _, n := range names {
				if strings.Contains(n, " "+a+" ") {
					return true
				}
			}
		}
		return false
	}
	for _, need := range in.Need {
		if !has(need) {
			return false
		}
	}
	if has(in.Not) {
		return false
	}
	s := e.Seasons
	shares := map[string]float64{"winter": s.Winter, "spring": s.Spring, "summer": s.Summer, "fall": s.Fall}
	if in.Season != "" && !near(shares[in.Season], max(s.Winter, s.Spring, s.Summer, s.Fall)) {
		return false
	}
	day, night := e.DayNight.Day, e.DayNight.Night
	if in.Time == "day" && !near(day, max(day, night)) || in.Time == "night" && !near(night, max(day, night)) {
		return false
	}
	g := e.Gender()
	return in.Gender == "" || string(g) == in.Gender || g == catalog.Unisex
}

func near(share, top float64) bool { return share > 0 && share >= 0.8*top }

// DiscoveryResult is the score of one description or taste: the share of
// its first DiscoveryDepth results meeting the intent (of as many as the
// catalogue holds, when fewer), and how well known they are against the
// best the catalogue holds for the intent: the mean log of their numbers
// of ratings over that of the most rated perfumes meeting it.
type DiscoveryResult struct {
	Name      string
	Line      int
	Precision float64
	Renown    float64
	Results   []string // the slugs, in order
	Missed    []string // those not meeting the intent
}

// DiscoveryReport sums a set's results.
type DiscoveryReport struct {
	Results   []DiscoveryResult
	Precision float64 // mean
	Renown    float64 // mean
}

// EvaluateDescribe scores each description with the index's match of its
// reading (describe.For(ix)), as GET /api/perfumes/match?q= does.
func EvaluateDescribe(ix *index.Index, cases []DescribeCase) DiscoveryReport {
	p := describe.For(ix)
	best := bestOf(ix)
	var rep DiscoveryReport
	for _, c := range cases {
		r := p.Parse(c.Query)
		res, err := ix.Match(r.Apply(index.MatchQuery{Page: 1, Limit: DiscoveryDepth}))
		var got []*index.Entry
		if err == nil && r.Understood() {
			for _, s := range res.Items {
				got = append(got, s.Entry)
			}
		}
		rep.add(judge(c.Query, c.Line, c.Intent, got, best))
	}
	rep.finish()
	return rep
}

// EvaluateRecommend scores each taste with the index's recommendations.
func EvaluateRecommend(ix *index.Index, cases []RecommendCase) (DiscoveryReport, error) {
	best := bestOf(ix)
	var rep DiscoveryReport
	for _, c := range cases {
		res, err := ix.Recommend(index.RecommendQuery{Liked: c.Liked, Disliked: c.Disliked, Page: 1, Limit: DiscoveryDepth})
		if err != nil {
			return rep, fmt.Errorf("line %d: %w", c.Line, err)
		}
		got := make([]*index.Entry, len(res.Items))
		for i, it := range res.Items {
			got[i] = it.Entry
		}
		rep.add(judge(strings.Join(c.Liked, " + "), c.Line, c.Intent, got, best))
	}
	rep.finish()
	return rep, nil
}

// bestOf returns, for an intent, the DiscoveryDepth most rated perfumes
// of ix meeting it.
func bestOf(ix *index.Index) func(Intent) []*index.Entry {
	all := ix.Perfumes(index.ListQuery{Page: 1, Limit: ix.Len()}).Entries // most rated first
	return func(in Intent) []*index.Entry {
		var out []*index.Entry
		for _, e := range all {
			if in.Meets(e) {
				if out = append(out, e); len(out) == DiscoveryDepth {
					break
				}
			}
		}
		return out
	}
}

// judge scores the results got of one case.
func judge(name string, line int, in Intent, got []*index.Entry, best func(Intent) []*index.Entry) DiscoveryResult {
	r := DiscoveryResult{Name: name, Line: line}
	top := best(in)
	met := 0
	var have float64
	for _, e := range got {
		r.Results = append(r.Results, e.Slug())
		if in.Meets(e) {
			met++
		} else {
			r.Missed = append(r.Missed, e.Slug())
		}
		have += math.Log1p(float64(e.RatingCount))
	}
	if len(top) == 0 {
		r.Precision, r.Renown = 1, 1 // nothing to find
		return r
	}
	r.Precision = float64(met) / float64(min(DiscoveryDepth, len(top)))
	var want float64
	for _, e := range top {
		want += math.Log1p(float64(e.RatingCount))
	}
	if len(got) > 0 {
		r.Renown = (have / float64(len(got))) / (want / float64(len(top)))
	}
	return r
}

func (rep *DiscoveryReport) add(r DiscoveryResult) { rep.Results = append(rep.Results, r) }

func (rep *DiscoveryReport) finish() {
	for _, r := range rep.Results {
		rep.Precision += r.Precision
		rep.Renown += r.Renown
	}
	if n := len(rep.Results); n > 0 {
		rep.Precision /= float64(n)
		rep.Renown /= float64(n)
	}
}
