package search

import (
	"cmp"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Typo lookups use a deletion index (the idea of SymSpell): two words
// within k edits of each other (insertions, deletions, substitutions and
// swaps of adjacent letters, as Distance counts them) become the same string
// once at most k letters are deleted from each. A substitution is undone
// by deleting its letter from both words, an insertion by deleting it from
// the longer one, a swap by deleting the same one of the two letters from
// both. So the index files every typo-searchable word under the hashes of
// its deletion variants, and a lookup hashes the query word's own variants:
// the words filed under them are the candidates, of which Distance keeps
// those truly within k. Nothing else of the vocabulary is visited, so a
// lookup costs the query word's variants (1 + n + n(n−1)/2 for two edits),
// not the vocabulary (a scan over words of nearby length would grow with
// the vocabulary).
//
// How many letters a word needs deleted depends on the queries that can
// reach it. TyposFor gives one edit from 5 letters and two from 9, so a
// word is reached with one edit from 4 letters (a 5-letter query word
// with a letter dropped) and with two from 7 (a 9-letter one with two
// dropped): words of 4–6 letters are filed with their one-letter
// deletions, longer ones with their one- and two-letter deletions, shorter
// ones not at all. typos asks no more of the index than that.
const (
	typoMinLen1 = 4 // shortest word one edit from a query word TyposFor allows one
	typoMinLen2 = 7 // shortest word two edits from a query word TyposFor allows two
)

// typoIndex is the deletion index: the ids of the words filed under hash
// h are ids[off[b]:off[b+1]] for bucket b = h&mask, each with the top
// byte of its variant's hash in fps (a collision of buckets is rejected by
// it 255 times in 256 before the word is read).
type typoIndex struct {
	mask uint64
	off  []uint32
	ids  []uint32
	fps  []uint8
}

// typoIndexBuilder collects the words to file. It keeps their ids only:
// their variants are hashed again when laid out rather than kept (a large
// catalogue has millions, garbage in the middle of a load whose heap is
// near the memory limit).
type typoIndexBuilder struct {
	ids []uint32
}

// add files word id under its deletion variants, if typos can reach it.
func (b *typoIndexBuilder) add(id uint32, w string) {
	if utf8.RuneCountInString(w) >= typoMinLen1 {
		b.ids = append(b.ids, id)
	}
}

// typosPerBucket is about how many variants share a bucket: the bucket
// offsets cost 4 bytes a bucket, and a lookup reads a bucket's fingerprints
// (a byte each) in one go, so a few a bucket costs a lookup nothing and
// saves 3 of every 4 offsets.
const typosPerBucket = 4

// build lays the words' variants out by bucket, in two passes over them
// (a counting sort): the first counts each bucket's variants, the second
// places them.
func (b *typoIndexBuilder) build(terms []string) typoIndex {
	most := 0 // the variants without duplicates removed: the buckets' number
	for _, id := range b.ids {
		n := utf8.RuneCountInString(terms[id])
		most += 1 + n
		if n >= typoMinLen2 {
			most += n * (n - 1) / 2
		}
	}
	n := uint64(1)
	for n*typosPerBucket < uint64(most) {
		n <<= 1
	}
	x := typoIndex{mask: n - 1, off: make([]uint32, n+1)}
	var hashes []uint64
	var starts []int
	each := func(fn func(h uint64, id uint32)) {
		for _, id := range b.ids {
			w := terms[id]
			edits := 1
			if utf8.RuneCountInString(w) >= typoMinLen2 {
				edits = 2
			}
			hashes = deletionHashes(w, edits, hashes[:0], &starts)
			slices.Sort(hashes)
			for _, h := range slices.Compact(hashes) {
				fn(h, id)
			}
		}
	}
	total := 0
	each(func(h uint64, _ uint32) { x.off[h&x.mask]++; total++ })
	start := uint32(0) // off[k] becomes where bucket k starts
	for k := range n {
		c := x.off[k]
		x.off[k] = start
		start += c
	}
	x.off[n] = start
	x.ids, x.fps = make([]uint32, total), make([]uint8, total)
	each(func(h uint64, id uint32) {
		k := h & x.mask
		x.ids[x.off[k]], x.fps[x.off[k]] = id, uint8(h>>56)
		x.off[k]++
	})
	// Each off[k] now holds where bucket k+1 starts: shift them back.
	copy(x.off[1:n], x.off[:n-1])
	x.off[0] = 0
	return x
}

// deletionHashes appends to out the hashes of w and of every string made
// by deleting up to edits (1 or 2) of its runes. starts is scratch.
func deletionHashes(w string, edits int, out []uint64, starts *[]int) []uint64 {
	st := (*starts)[:0]
	for i := range w {
		st = append(st, i)
	}
	st = append(st, len(w))
	*starts = st
	n := len(st) - 1
	out = append(out, hashSkip(w, len(w), len(w), len(w), len(w)))
	for i := 0; i < n; i++ {
		out = append(out, hashSkip(w, st[i], st[i+1], len(w), len(w)))
		if edits < 2 {
			continue
		}
		for j := i + 1; j < n; j++ {
			out = append(out, hashSkip(w, st[i], st[i+1], st[j], st[j+1]))
		}
	}
	return out
}

// hashSkip is the FNV-1a hash of w without the bytes [a0, a1) and
// [b0, b1) (a1 ≤ b0), with its high bits folded into the low ones that
// pick a bucket.
func hashSkip(w string, a0, a1, b0, b1 int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < a0; i++ {
		h = (h ^ uint64(w[i])) * prime
	}
	for i := a1; i < b0; i++ {
		h = (h ^ uint64(w[i])) * prime
	}
	for i := b1; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * prime
	}
	return h ^ h>>29
}

// typos reports the typo-searchable terms 1..k edits from w with their
// distance, shorter words first and in vocabulary order within a length
// (the order of the length buckets this index replaced). k must be at
// most TyposFor(w) (see typoMinLen1).
func (t *TextIndex) typos(w string, k int, fn func(id uint32, d int)) {
	n := utf8.RuneCountInString(w)
	if k <= 0 || n > maxTypoLen+k || len(t.typo.off) == 0 {
		return
	}
	var hashBuf [64]uint64
	var startBuf [maxTypoLen + 1]int
	starts := startBuf[:0]
	variants := deletionHashes(w, k, hashBuf[:0], &starts)
	var candBuf [64]uint32
	cands := candBuf[:0]
	for _, h := range variants {
		b, fp := h&t.typo.mask, uint8(h>>56)
		for i := t.typo.off[b]; i < t.typo.off[b+1]; i++ {
			if t.typo.fps[i] == fp {
				cands = append(cands, t.typo.ids[i])
			}
		}
	}
	if len(cands) == 0 {
		return
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	m := letterMask(w)
	type found struct {
		id      uint32
		n, dist int
	}
	var foundBuf [16]found
	out := foundBuf[:0]
	for _, id := range cands {
		term := t.terms[id]
		tn := utf8.RuneCountInString(term)
		if tn < n-k || tn > n+k || bits.OnesCount64(letterMask(term)^m) > 2*k {
			continue
		}
		if d := Distance(w, term, k); d >= 1 && d <= k {
			out = append(out, found{id, tn, d})
		}
	}
	slices.SortFunc(out, func(a, b found) int { return cmp.Or(cmp.Compare(a.n, b.n), cmp.Compare(a.id, b.id)) })
	for _, f := range out {
		fn(f.id, f.dist)
	}
}
