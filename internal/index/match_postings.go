package index

import (
	"encoding/binary"
	"math/bits"
)

// wishSums are the sums of one block of documents: each one's fit to the
// wishes so far, and a mark (1) on each having one of them. A mark is a
// byte, not a bit, so that setting it is a store: a bit is a load and a
// store, and the postings of one word's documents would wait on each
// other. Eight marks read as a word are counted by a popcount.
type wishSums struct {
	sum  [matchBlock]float32
	seen [matchBlock]uint8
}

// matchPostings is matchWishes for wishes none of which has bitmaps (rare
// accords and notes): their postings are walked whole, a block of
// documents at a time, each wish in the order asked, into sums and marks
// that stay in the L1 cache; the block's perfumes are then counted and
// tested against the heap's floor (dense, or sparse when the block has
// few postings). Blocks no wish has a document in are skipped, so a rare
// note costs its postings, not the catalogue. sums is zero, and left so.
func (m *matchScan) matchPostings(ws []wish, sums *wishSums) int {
	for {
		base, ok := nextBlock(ws)
		if !ok {
			return m.total
		}
		added := 0
		for i := range ws {
			w := &ws[i]
			var n int
			if w.shift == 2 {
				n = markNoteFits(w.post, base+matchBlock, sums)
			} else {
				n = markAccordFits(w.post, base+matchBlock, &w.fit, sums)
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

// markAccordFits adds to sums the fits of an accord's first postings,
// those of documents below end (all in sums' block), marks their
// documents, and returns how many it added. It and markNoteFits are a
// posting's load, add and two stores.
func markAccordFits(post []uint32, end uint32, fit *[256]float32, sums *wishSums) int {
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

// markNoteFits is markAccordFits for a note: 1 for every perfume having it.
func markNoteFits(post []uint32, end uint32, sums *wishSums) int {
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
