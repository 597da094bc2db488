package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// maxDistanceLen is the longest word (in bytes or runes) whose distance is
// computed on the stack; longer words allocate.
const maxDistanceLen = 64

// Distance returns the optimal-string-alignment distance of a and b:
// inserting, deleting or substituting a letter, or swapping two adjacent
// letters, each count one. It stops early and returns k+1 as soon as the
// distance is known to exceed k, which keeps typo lookups cheap.
func Distance(a, b string, k int) int {
	if isASCII(a) && isASCII(b) {
		// Read-only views of the strings' bytes: no copy, nothing written.
		return osa(unsafe.Slice(unsafe.StringData(a), len(a)), unsafe.Slice(unsafe.StringData(b), len(b)), k)
	}
	return osa([]rune(a), []rune(b), k)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// osa is the bounded dynamic programme over three rows.
func osa[T comparable](a, b []T, k int) int {
	if d := len(a) - len(b); d > k || -d > k {
		return k + 1
	}
	var buf [3][maxDistanceLen + 1]int32
	var prev2, prev, cur []int32
	if len(b) <= maxDistanceLen {
		prev2, prev, cur = buf[0][:len(b)+1], buf[1][:len(b)+1], buf[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int32, len(b)+1), make([]int32, len(b)+1), make([]int32, len(b)+1)
	}
	for j := range prev {
		prev[j] = int32(j)
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = int32(i)
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := int32(1)
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if int(rowMin) > k {
			return k + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(int(prev[len(b)]), k+1)
}

// letterMask sets one bit per letter or digit present in s (other runes
// share the remaining bits). Each edit changes at most two bits, so two
// words whose masks differ in more than 2k bits are more than k edits apart:
// a one-instruction filter before Distance.
func letterMask(s string) uint64 {
	var m uint64
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			m |= 1 << (r - 'a')
		case r >= '0' && r <= '9':
			m |= 1 << (26 + r - '0')
		default:
			m |= 1 << (36 + uint(r)%28)
		}
	}
	return m
}

// Suggest returns up to n of names closest to word, for "did you mean"
// messages: names within a few edits of word, or that start with it or
// contain it, best first. Comparison is on folded text.
func Suggest(word string, names []string, n int) []string {
	w := Fold(word)
	if w == "" || n <= 0 {
		return nil
	}
	type cand struct {
		name string
		rank int
	}
	limit := max(2, utf8.RuneCountInString(w)/3)
	var cs []cand
	for _, name := range names {
		f := Fold(name)
		switch d := Distance(w, f, limit); {
		case d <= limit:
			cs = append(cs, cand{name, d})
		case strings.HasPrefix(f, w):
			cs = append(cs, cand{name, limit + 1})
		case strings.Contains(f, w) || (len(f) >= 3 && strings.Contains(w, f)):
			cs = append(cs, cand{name, limit + 2})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(n, len(cs)))
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}
