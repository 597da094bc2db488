package index

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index/ranking"
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
//	(Σ accords ranking.AccordFit(wanted, its strength) + Σ notes it has) / (accords + notes asked)
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
	score := keyScore
	switch {
	case needsRanked(&q):
		rq, err := ix.resolveRanked(&q, &r)
		if err != nil {
			return MatchResult{}, err
		}
		terms := rq.terms(&r)
		score = func(key uint64) float64 { return rankedScore(key, &rq, terms) }
		if rq.popular {
			total, ranked := ix.matchPopular(&r, &rq, k)
			top.h, res.Total = ranked, total // already in order: sorted() keeps it
			break
		}
		res.Total = ix.matchRanked(&r, &rq, top)
	case len(r.accIDs)+len(r.noteIDs) == 0:
		// Every perfume passing is counted, but only one scoring at least
		// the heap's floor can enter it, so only those get a key (see
		// topK.floor).
		res.Total = ix.matchFilters(r.need, r.shares, top)
	default:
		res.Total = ix.matchWishes(&r, top)
	}
	res.Pages = pages(res.Total, l)
	sorted := top.sorted()
	if from < len(sorted) {
		for _, kd := range sorted[from:] {
			res.Items = append(res.Items, Scored{
				Entry: &ix.entries[kd.doc], Score: ranking.Score(score(kd.key)),
			})
		}
	}
	return res, nil
}

// matchBlock is how many documents matchWishes takes at a time: few
// enough that their sums (8 KB) stay in the L1 cache while every wish's
// postings stream through, many enough that the work per block and wish
// is nothing beside its postings. matchBits are by block too.
const matchBlock = 1 << 11

// wish is an asked accord or note as matchWishes walks it.
type wish struct {
	all   []uint32 // its postings: doc<<shift | value, documents ascending
	post  []uint32 // those of documents past the block
	block []uint32 // those of the block's
	shift uint     // of a posting's document: 8 for an accord, 2 for a note
	bits  wishBits // its bitmaps, empty when its postings are read instead
	left  uint32   // with bitmaps: the first document of the next block it has documents in
	// most is the most it adds to a sum (its best fit, 0 when that is
	// less, as a perfume lacking it adds 0), big the most it adds or
	// takes away.
	most, big float64
	fit       [256]float32 // an accord's fit by strength (a note had adds 1)
	// bound is the most a perfume adds by its code: for an accord with
	// bitmaps its band of strength, else 1 when it has the wish; 0 when
	// it lacks it.
	bound [8]float64
	// The block's: the documents having it, its bands' bitmaps (for an
	// accord with bitmaps) and per word of pres the bits set in those
	// before.
	pres   [blockWords]uint64
	planes []uint64
	rank   [blockWords]uint16
}

// matchWishes pushes, by score, the perfumes having at least one of r's
// accords or notes and passing its filters, and counts them.
//
// The exact Total needs every perfume having a wish found, not scored. A
// block of documents at a time, it is the popcount of (the OR of the
// wishes' documents) AND (the documents passing the filters), bitmaps
// that matchBits holds for the filters and the common accords and notes
// and that the postings of a rare one make. When no wish asked has
// bitmaps, matchPostings walks the postings instead: that costs only
// theirs.
//
// Only perfumes whose sum can be over the heap's floor are scored, as
// MaxScore would have it: a wish's most (its best fit) bounds what it
// adds, so a perfume lacking a wish, or having it at a fit at most the
// floor's sum less the other wishes' most, can't enter. When lacking it
// is enough to stay out, the wish is required: the candidates are the
// perfumes having it in a band of strength whose best fit is high enough
// (its bitmaps tell the bands; a rare accord's postings tell the fits).
// Once the page is full of good fits, a few of a block's perfumes are
// left, often none. Then (pick) each is bounded by its bands, the sum of
// every wish's best fit in the band it has, and only those the bound
// does not rule out have their postings read. The bounds are in float64
// and widened by more than float32 summation can err, so no perfume is
// ruled out whose float32 sum could reach the floor; a tie on the floor
// is topK's to decide, as every candidate over it is pushed.
//
// Where the candidates are many beside the block's postings (before the
// heap is full, or under a deep page's low floor), the block's postings
// are added up whole into sums instead (add). Both add a perfume's fits
// in the order the wishes were asked, so the float32 sums are the same.
// Blocks no wish has a document in are skipped.
func (ix *Index) matchWishes(r *resolved, top *topK) int {
	work, _ := ix.bits.pool.Get().(*matchWork)
	if work == nil {
		work = new(matchWork)
	}
	defer ix.bits.pool.Put(work)
	ws := ix.wishesOf(r, work)
	most, big, bitmaps := 0.0, 1.0, false
	for i := range ws {
		most, big = most+ws[i].most, big+ws[i].big
		bitmaps = bitmaps || ws[i].bits.words != nil
	}
	// A float32 sum of n terms is within (n-1)·2⁻²⁴ of their magnitudes'
	// sum of the exact one.
	slack := float64(len(ws)) * big * 0x1p-22
	m := matchScan{ix: ix, top: top, need: r.need, n: float32(len(ws))}
	m.setOver()
	if !bitmaps {
		return m.matchPostings(ws, &work.marks)
	}
	sc := &work.scratch
	for {
		base, ok := nextBlock(ws)
		if !ok {
			return m.total
		}
		var live, cand [blockWords]uint64
		for j := range cand {
			cand[j] = math.MaxUint64
		}
		over, read := float64(m.over), 0
		for i := range ws {
			w := &ws[i]
			// A perfume lacking w, or having it at a fit at most least,
			// has a sum at most over: w is required when least ≥ 0.
			least := over - (most - w.most) - slack
			w.load(base, least, &cand)
			for j, x := range w.pres {
				live[j] |= x
			}
			read += len(w.block)
		}
		m.filter(base, &live)
		c := 0
		for j, x := range live {
			m.total += bits.OnesCount64(x)
			cand[j] &= x
			c += bits.OnesCount64(cand[j])
		}
		if c == 0 {
			continue
		}
		if 2*c*len(ws) <= read {
			m.pick(base, ws, &cand, slack, sc)
		} else {
			m.add(base, ws, &cand, &sc.sums)
		}
	}
}

// wishesOf returns r's accords and then its notes as wishes in work,
// each with its postings, bitmaps, fits and bounds, ready for the first
// block.
func (ix *Index) wishesOf(r *resolved, work *matchWork) []wish {
	s := ix.sim
	ws := work.wishes(len(r.accIDs) + len(r.noteIDs))
	for i, id := range r.accIDs {
		w := &ws[i]
		w.all, w.shift, w.bits = s.accPost[s.accOff[id]:s.accOff[id+1]], 8, ix.bits.acc[id]
		for st := range strengthBand { // the strengths there are (build clamps them)
			w.fit[st] = float32(ranking.AccordFit(r.accWant[i], float64(st)))
		}
		for b := 1; b < len(w.bound); b++ {
			w.bound[b] = math.Inf(-1)
		}
		for st, b := range strengthBand {
			f := float64(w.fit[st])
			w.bound[b] = max(w.bound[b], f)
			w.most, w.big = max(w.most, f), max(w.big, math.Abs(f))
		}
		if w.bits.words == nil { // the postings tell no band: had is 1
			w.bound[1] = w.most
		}
	}
	for i, id := range r.noteIDs {
		w := &ws[len(r.accIDs)+i]
		w.all, w.shift, w.bits = s.notePost[s.noteOff[id]:s.noteOff[id+1]], 2, ix.bits.note[id]
		w.most, w.big, w.bound[1] = 1, 1, 1
	}
	for i := range ws {
		ws[i].post = ws[i].all
		ws[i].skip(0)
	}
	return ws
}

// load takes w's postings of the block from base: it sets w.block and
// w.pres, and when least is at least 0 (w is required) it keeps in cand
// only the documents having w at a fit over least, or some of those
// lacking it as well.
func (w *wish) load(base uint32, least float64, cand *[blockWords]uint64) {
	if w.bits.words == nil {
		w.read(base, least, cand)
		return
	}
	b := base / matchBlock
	w.block, w.post = w.all[w.bits.off[b]:w.bits.off[b+1]], w.all[w.bits.off[b+1]:]
	w.skip(int(b) + 1)
	if w.shift == 2 {
		w.planes = nil
		w.pres = [blockWords]uint64(w.bits.words[b*blockWords:])
		if least >= 1 {
			*cand = [blockWords]uint64{}
		} else if least >= 0 {
			for j, x := range w.pres {
				cand[j] &= x
			}
		}
		return
	}
	pl := w.bits.words[b*3*blockWords:][:3*blockWords]
	w.planes = pl
	p0, p1, p2 := pl[:blockWords], pl[blockWords:2*blockWords], pl[2*blockWords:]
	for j := range w.pres {
		w.pres[j] = p0[j] | p1[j] | p2[j]
	}
	if least < 0 {
		return
	}
	lo, hi := uint8(8), uint8(0) // the bands whose best fit is over least
	for c := uint8(1); c < 8; c++ {
		if w.bound[c] > least {
			lo, hi = min(lo, c), c
		}
	}
	switch {
	case lo > hi:
		*cand = [blockWords]uint64{}
	case lo == 1 && hi == 7:
		for j, x := range w.pres {
			cand[j] &= x
		}
	default:
		from, past := newBandTest(lo), newBandTest(hi+1)
		for j := range cand {
			cand[j] &= from.test(p0[j], p1[j], p2[j]) &^ past.test(p0[j], p1[j], p2[j])
		}
	}
}

// nextBlock returns the first document of the next block a wish has a
// document in, or false when every wish is walked.
func nextBlock(ws []wish) (base uint32, ok bool) {
	next := uint32(math.MaxUint32) // the first document a wish has left
	for i := range ws {
		next = min(next, ws[i].first())
	}
	return next &^ (matchBlock - 1), next != math.MaxUint32
}

// first is the first document w has left, or for a wish with bitmaps the
// first of the block it is in, which needs no posting read.
func (w *wish) first() uint32 {
	switch {
	case w.bits.words != nil:
		return w.left
	case len(w.post) > 0:
		return w.post[0] >> w.shift
	}
	return math.MaxUint32
}

// skip sets w.left to the first block from b that w has documents in.
func (w *wish) skip(b int) {
	off := w.bits.off
	for b < len(off)-1 && off[b+1] == off[b] {
		b++
	}
	w.left = math.MaxUint32
	if b < len(off)-1 {
		w.left = uint32(b) * matchBlock
	}
}

// read is load for a wish without bitmaps: it reads the postings.
func (w *wish) read(base uint32, least float64, cand *[blockWords]uint64) {
	end := base + matchBlock
	w.pres = [blockWords]uint64{}
	w.planes = nil
	var keep [blockWords]uint64
	floor := float32(least) // at most least, so that fit > floor keeps more
	if float64(floor) > least {
		floor = math.Nextafter32(floor, float32(math.Inf(-1)))
	}
	n := len(w.post)
	for i, p := range w.post {
		if p>>w.shift >= end {
			n = i
			break
		}
		d := p >> w.shift & (matchBlock - 1)
		w.pres[d/64] |= 1 << (d % 64)
		f := float32(1)
		if w.shift == 8 {
			f = w.fit[uint8(p)]
		}
		if f > floor {
			keep[d/64] |= 1 << (d % 64)
		}
	}
	w.block, w.post = w.post[:n], w.post[n:]
	if least >= 0 {
		for j, x := range keep {
			cand[j] &= x
		}
	}
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
	if len(m.top.h) == m.top.k { // else the floor is still -1
		m.setOver()
	}
}

// filter keeps in live the documents of the block from base that pass
// the filters.
func (m *matchScan) filter(base uint32, live *[blockWords]uint64) {
	mb := m.ix.bits
	for need := m.need; need != 0; need &= need - 1 {
		f := mb.filter[bits.TrailingZeros16(need)*mb.words+int(base/64):][:blockWords]
		for j := range live {
			live[j] &= f[j]
		}
	}
}

// matchWork is the working memory of a matchWishes, kept for the next.
type matchWork struct {
	ws      []wish
	scratch matchScratch
	marks   wishSums // for matchPostings
}

// wishes returns n zero wishes.
func (w *matchWork) wishes(n int) []wish {
	if cap(w.ws) < n {
		w.ws = make([]wish, n)
	}
	ws := w.ws[:n]
	clear(ws)
	return ws
}

// matchScratch is the working memory of matchWishes' scoring.
type matchScratch struct {
	sums [matchBlock]float32 // zero between blocks
	keys [matchBlock]keyed
	docs [matchBlock]uint16
}

// pick scores the candidates of the block from base one by one, and
// pushes those over the floor: a candidate has a wish when its bit in the
// wish's bitmap is set, and the bits set before it tell where its
// posting is among the block's. It goes wish by wish, the order of the
// sums, over every candidate: with no branch on whether a candidate has
// the wish (one lacking it adds 0, which leaves its sum as it was), the
// postings the candidates need are loaded side by side, not one after
// another's cache miss.
func (m *matchScan) pick(base uint32, ws []wish, cand *[blockWords]uint64, slack float64, sc *matchScratch) {
	docs := sc.docs[:0]
	for j, word := range cand {
		for ; word != 0; word &= word - 1 {
			docs = append(docs, uint16(j*64+bits.TrailingZeros64(word)))
		}
	}
	// The candidates whose bands or wishes had can't bring them over the
	// floor are dropped before their postings are read.
	floor, n := float64(m.over), 0
	for _, d := range docs {
		j, b := d/64, d%64
		bound := slack
		for i := range ws {
			w := &ws[i]
			code := w.pres[j] >> b & 1
			if w.planes != nil {
				code = w.planes[j]>>b&1 | w.planes[blockWords+j]>>b&1<<1 | w.planes[2*blockWords+j]>>b&1<<2
			}
			bound += w.bound[code]
		}
		if bound > floor {
			docs[n] = d
			n++
		}
	}
	docs = docs[:n]
	sum := sc.sums[:len(docs)] // zero, as add leaves it
	for i := range ws {
		w := &ws[i]
		if len(w.block) == 0 {
			continue
		}
		if w.shift == 2 {
			for k, d := range docs {
				sum[k] += float32(w.pres[d/64] >> (d % 64) & 1)
			}
			continue
		}
		r := 0
		for j, x := range w.pres {
			w.rank[j] = uint16(r)
			r += bits.OnesCount64(x)
		}
		last := len(w.block) - 1
		if w.planes == nil {
			for k, d := range docs {
				x := w.pres[d/64]
				at := min(int(w.rank[d/64])+bits.OnesCount64(x&(1<<(d%64)-1)), last)
				had := -uint32(x >> (d % 64) & 1) // all ones when the candidate has it
				sum[k] += math.Float32frombits(math.Float32bits(w.fit[uint8(w.block[at])]) & had)
			}
			continue
		}
		// The top band is one strength (100, the commonest): a perfume
		// in it has its fit known without its posting.
		p0, p1, p2 := w.planes[:blockWords], w.planes[blockWords:2*blockWords], w.planes[2*blockWords:]
		topFit := w.fit[bandStart[7]]
		for k, d := range docs {
			j, b := d/64, d%64
			if (p0[j]&p1[j]&p2[j])>>b&1 != 0 {
				sum[k] += topFit
				continue
			}
			x := w.pres[j]
			at := min(int(w.rank[j])+bits.OnesCount64(x&(1<<b-1)), last)
			had := -uint32(x >> b & 1) // all ones when the candidate has it
			sum[k] += math.Float32frombits(math.Float32bits(w.fit[uint8(w.block[at])]) & had)
		}
	}
	// The keys of those over the floor are made before any is pushed, so
	// that their places in the popularity order (each a cache miss) are
	// read side by side.
	keys := sc.keys[:0]
	for k, s := range sum {
		if s > m.over {
			doc := base + uint32(docs[k])
			keys = append(keys, keyed{scoreKey(float64(s/m.n)) | m.ix.popKey(doc), doc})
		}
	}
	clear(sum)
	for _, kd := range keys {
		m.top.push(kd.key, kd.doc)
	}
	if len(m.top.h) == m.top.k {
		m.setOver()
	}
}

// add scores the candidates of the block from base by adding up every
// posting of the block, wish after wish, into sums, pushes those over the
// floor, and leaves sums zero.
func (m *matchScan) add(base uint32, ws []wish, cand *[blockWords]uint64, sums *[matchBlock]float32) {
	for i := range ws {
		if w := &ws[i]; w.shift == 2 {
			addNoteFits(w.block, sums)
		} else {
			addAccordFits(w.block, &w.fit, sums)
		}
	}
	over := m.over
	for j, word := range cand {
		for ; word != 0; word &= word - 1 {
			d := j*64 + bits.TrailingZeros64(word)
			if s := sums[d]; s > over {
				m.push(s, base+uint32(d))
				over = m.over
			}
		}
	}
	clear(sums[:])
}

// addAccordFits adds to sums the fits of an accord's postings of one
// block. It and addNoteFits are a posting's load, add and store.
func addAccordFits(block []uint32, fit *[256]float32, sums *[matchBlock]float32) {
	for _, p := range block {
		sums[p>>8&(matchBlock-1)] += fit[uint8(p)]
	}
}

// addNoteFits is addAccordFits for a note: 1 for every perfume having it.
func addNoteFits(block []uint32, sums *[matchBlock]float32) {
	for _, p := range block {
		sums[p>>2&(matchBlock-1)]++
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
