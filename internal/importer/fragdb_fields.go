package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The parsers below read FragDB's packed fields. Each returns an error for
// a field it cannot read, which rejects the row: a half-read field would
// store wrong data silently.

// weighted is one "id:value" item, as in accords "a24:100;a91:75".
type weighted struct {
	ID    string
	Value float64
}

// parseWeighted reads "a24:100;a91:75". Empty items are skipped.
func parseWeighted(s string) ([]weighted, error) {
	var out []weighted
	for _, item := range splitItems(s, ';') {
		id, val, ok := strings.Cut(item, ":")
		id = strings.TrimSpace(id)
		if !ok || id == "" {
			return nil, fmt.Errorf("item %q: want id:value", item)
		}
		v, err := parseNumber(val)
		if err != nil {
			return nil, fmt.Errorf("item %q: %w", item, err)
		}
		out = append(out, weighted{ID: id, Value: v})
	}
	return out, nil
}

// vote is one "key:count:percent" item of a vote distribution, as in
// "season_winter:1800:11.16". The percent is relative to the largest
// option, not a share, so shares are computed from the counts.
type vote struct {
	Key   string
	Count float64
}

// parseVotes reads "key:count[:percent];...". Counts must be finite and
// not negative; the percent is checked to be a number and then ignored.
func parseVotes(s string) ([]vote, error) {
	var out []vote
	for _, item := range splitItems(s, ';') {
		parts := strings.Split(item, ":")
		key := strings.TrimSpace(parts[0])
		if len(parts) < 2 || len(parts) > 3 || key == "" {
			return nil, fmt.Errorf("item %q: want key:count:percent", item)
		}
		n, err := parseNumber(parts[1])
		if err == nil && n < 0 {
			err = fmt.Errorf("negative count %v", n)
		}
		if err == nil && len(parts) == 3 {
			_, err = parseNumber(parts[2])
		}
		if err != nil {
			return nil, fmt.Errorf("item %q: %w", item, err)
		}
		out = append(out, vote{Key: key, Count: n})
	}
	return out, nil
}

// voteShares maps each option (the key without prefix) to its share of all
// votes on 0–100. Options not in names are ignored; aliases map a source
// spelling to its name ("autumn" → "fall").
func voteShares(votes []vote, prefix string, aliases map[string]string) map[string]float64 {
	total := 0.0
	for _, v := range votes {
		total += v.Count
	}
	out := make(map[string]float64, len(votes))
	if total == 0 {
		return out
	}
	for _, v := range votes {
		key := strings.TrimPrefix(v.Key, prefix)
		if alias, ok := aliases[key]; ok {
			key = alias
		}
		out[key] += round1(v.Count / total * 100)
	}
	return out
}

// meanVote is the mean of a vote distribution whose options score
// scale[option] (1 = weakest), rounded to two decimals; 0 without votes.
func meanVote(votes []vote, prefix string, scale map[string]float64) float64 {
	sum, n := 0.0, 0.0
	for _, v := range votes {
		if score, ok := scale[strings.TrimPrefix(v.Key, prefix)]; ok {
			sum += score * v.Count
			n += v.Count
		}
	}
	if n == 0 {
		return 0
	}
	return math.Round(sum/n*100) / 100
}

// Vote scales of FragDB's performance fields.
var (
	longevityScale = map[string]float64{"very_weak": 1, "weak": 2, "moderate": 3, "long_lasting": 4, "eternal": 5}
	sillageScale   = map[string]float64{"intimate": 1, "moderate": 2, "strong": 3, "enormous": 4}
)

// pyramid holds note ids by layer, as read from notes_pyramid.
type pyramid struct {
	Top, Middle, Base, Unplaced []string
}

// parsePyramid reads "top(n2415,1.0,5.0;n146,0.96,3.67)middle(...)base(...)".
// Each item is a note id followed by optional numbers, which are not used.
// A layer other than top, middle (or heart) and base goes to Unplaced.
func parsePyramid(s string) (pyramid, error) {
	var p pyramid
	rest := strings.TrimSpace(s)
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		closing := strings.IndexByte(rest, ')')
		if open < 0 || closing < open {
			return pyramid{}, fmt.Errorf("layer %q: want name(items)", clip(rest))
		}
		layer := strings.ToLower(strings.TrimSpace(rest[:open]))
		inner := rest[open+1 : closing]
		if strings.IndexByte(inner, '(') >= 0 {
			return pyramid{}, fmt.Errorf("layer %q: unclosed \"(\"", layer)
		}
		ids, err := pyramidItems(inner)
		if err != nil {
			return pyramid{}, fmt.Errorf("layer %q: %w", layer, err)
		}
		switch layer {
		case "top":
			p.Top = append(p.Top, ids...)
		case "middle", "heart":
			p.Middle = append(p.Middle, ids...)
		case "base":
			p.Base = append(p.Base, ids...)
		default:
			p.Unplaced = append(p.Unplaced, ids...)
		}
		rest = strings.TrimLeft(rest[closing+1:], " ;,")
	}
	return p, nil
}

func pyramidItems(s string) ([]string, error) {
	var ids []string
	for _, item := range splitItems(s, ';') {
		fields := strings.Split(item, ",")
		id := strings.TrimSpace(fields[0])
		if id == "" {
			return nil, fmt.Errorf("item %q: missing note id", item)
		}
		for _, f := range fields[1:] {
			if _, err := parseNumber(f); err != nil {
				return nil, fmt.Errorf("item %q: %w", item, err)
			}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// named is a name with the FragDB id that may follow it.
type named struct {
	Name string
	ID   string
}

// parseNamedRefs reads "Olivier Cresp;p39;Laurent Bruyere;p48" (and the
// brand field "Dolce&Gabbana;b72"): names, each optionally followed by its
// id, which starts with prefix and has only digits after it. An id with no
// name before it stands alone, to be resolved from the lookup file.
func parseNamedRefs(s string, prefix byte) []named {
	var out []named
	for _, item := range splitItems(s, ';') {
		if isRefID(item, prefix) {
			if n := len(out); n > 0 && out[n-1].ID == "" {
				out[n-1].ID = item
			} else {
				out = append(out, named{ID: item})
			}
			continue
		}
		out = append(out, named{Name: item})
	}
	return out
}

func isRefID(s string, prefix byte) bool {
	if len(s) < 2 || s[0] != prefix {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseRating reads "3.86;35479": mean rating and number of ratings.
func parseRating(s string) (rating float64, count int, err error) {
	mean, n, hasCount := strings.Cut(strings.TrimSpace(s), ";")
	if mean != "" {
		if rating, err = parseNumber(mean); err != nil {
			return 0, 0, fmt.Errorf("rating %q: %w", s, err)
		}
	}
	if hasCount && strings.TrimSpace(n) != "" {
		if count, err = strconv.Atoi(strings.TrimSpace(n)); err != nil {
			return 0, 0, fmt.Errorf("rating count %q: %w", s, err)
		}
	}
	return rating, count, nil
}

// splitItems splits s by sep, trimming items and dropping empty ones.
func splitItems(s string, sep byte) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, string(sep))
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if n := 0; len(s) > 40 {
		for i := range s {
			if n++; n > 40 {
				return s[:i] + "…"
			}
		}
	}
	return s
}
