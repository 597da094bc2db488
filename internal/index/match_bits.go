package index

import (
	"math/bits"
	"sync"
)

// blockWords is how many words of bits hold a block of documents.
const blockWords = matchBlock / 64

// hasBits is how many bits of profile.has the filters use.
const hasBits = 9

// matchBits are bitmaps that let Match count a block of documents, and
// rule out most of those that cannot enter its page, a word of 64
// documents at a time, reading no postings (see matchWishes).
//
// Only accords and notes on at least one perfume in storedShare have
// them: a bitmap costs a bit per perfume, and a rare one's postings are
// few to read. At 200,000 perfumes the 26 such accords (three bitmaps
// each), 29 such notes and the filters hold 2.9 MB.
type matchBits struct {
	words int // per bitmap: the documents rounded up to whole blocks, over 64
	// filter is a bitmap per bit of profile.has: bit i's documents are
	// filter[i*words:][:words].
	filter []uint64
	// acc and note are by accord and note id, empty for the rare ones.
	acc, note []wishBits
	pool      sync.Pool // *matchWork
}

// storedShare is the least share of the catalogue (its inverse) an accord
// or note must be on for its bitmaps to be kept.
const storedShare = 16

// wishBits are an accord's or note's documents by block. A note has one
// bitmap, which tells the documents having it; an accord has three,
// which tell each document's band of strength (strengthBand, 0 when it
// lacks the accord) as bits 0, 1 and 2, block by block: the words of
// block b are words[b*3*blockWords:], plane after plane. off[b] is where
// block b's documents start in its postings.
type wishBits struct {
	words []uint64
	off   []uint32
}

// bandStart is the least strength of each band (1–7) of strength the
// bitmaps tell apart; 0 is an accord lacked. The bands narrow towards the
// top, where most wanted strengths and most kept perfumes are: two wishes
// for 100 keep, once the page is full of fits above 0.95, the perfumes in
// the top three bands of both. The top band is 100 alone, a perfume's
// strongest accord and a seventh of all strengths, whose fit pick knows
// without reading the posting.
var bandStart = [9]int{0, 0, 30, 50, 65, 80, 90, 100, 101}

// strengthBand is the band of each strength 0–100.
var strengthBand = func() (t [101]uint8) {
	for b := 1; b < 8; b++ {
		for s := bandStart[b]; s < bandStart[b+1]; s++ {
			t[s] = uint8(b)
		}
	}
	return t
}()

// buildMatchBits makes the bitmaps of the filters (from has) and of the
// common accords and notes (from their postings).
func buildMatchBits(s *simIndex, has []uint16) *matchBits {
	n := len(has)
	blocks := (n + matchBlock - 1) / matchBlock
	mb := &matchBits{words: blocks * blockWords}
	mb.filter = make([]uint64, hasBits*mb.words)
	for d, h := range has {
		for h != 0 {
			i := bits.TrailingZeros16(h)
			h &= h - 1
			if i < hasBits {
				mb.filter[i*mb.words+d/64] |= 1 << (d % 64)
			}
		}
	}
	mb.acc = stored(s.accOff, s.accPost, blocks, n, 8, 3)
	mb.note = stored(s.noteOff, s.notePost, blocks, n, 2, 1)
	return mb
}

// stored makes the wishBits of each id (accord or note) whose postings
// (off, post, each doc<<shift | value) name at least n/storedShare
// documents; planes is 3 for accords, whose values are strengths, and 1
// for notes.
func stored(off, post []uint32, blocks, n int, shift uint, planes int) []wishBits {
	out := make([]wishBits, len(off)-1)
	for id := range out {
		p := post[off[id]:off[id+1]]
		if len(p) == 0 || len(p) < n/storedShare {
			continue
		}
		wb := wishBits{words: make([]uint64, blocks*planes*blockWords), off: make([]uint32, blocks+1)}
		for i, x := range p {
			d := int(x >> shift)
			b := d / matchBlock
			wb.off[b+1] = uint32(i + 1)
			at := b*planes*blockWords + d%matchBlock/64
			code := uint8(1)
			if planes == 3 {
				code = strengthBand[min(uint8(x), 100)]
			}
			for pl := range planes {
				if code>>pl&1 != 0 {
					wb.words[at+pl*blockWords] |= 1 << (d % 64)
				}
			}
		}
		for b := 1; b <= blocks; b++ { // blocks without documents end where the one before did
			wb.off[b] = max(wb.off[b], wb.off[b-1])
		}
		out[id] = wb
	}
	return out
}

// bandTest compares 64 documents' bands (three-bit numbers, as planes of
// their bits from the lowest) with a constant c, bit by bit from the
// lowest: the documents' numbers are at least c's low bits so far when
// their bit is set and c's is not, or when both are set, or they are
// equal and were so far. keep[i] is all ones where c's bit i is 0.
type bandTest struct {
	keep [3]uint64
	none bool // c is past every band
}

func newBandTest(c uint8) bandTest {
	t := bandTest{none: c >= 8}
	for i := range t.keep {
		if c>>i&1 == 0 {
			t.keep[i] = ^uint64(0)
		}
	}
	return t
}

// test is the bitmap word of the documents whose band is at least c.
func (t *bandTest) test(p0, p1, p2 uint64) uint64 {
	if t.none {
		return 0
	}
	ge := ^uint64(0)
	ge = p0&ge | t.keep[0]&(p0|ge)
	ge = p1&ge | t.keep[1]&(p1|ge)
	return p2&ge | t.keep[2]&(p2|ge)
}
