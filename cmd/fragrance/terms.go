package main

import (
	"log/slog"
	"sync"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

// dataTerms follows how much of the served catalogue is the bundled
// catalogue, whose data is reported to be CC BY-NC-SA 4.0: the pricing page
// then shows the attribution the licence asks for, and serve warns once
// when --tier-prices charges for access to it. Counting reads the bundled
// file (some 0.3 s), so it is done only when asked: after a load when
// prices are set, and for the pricing page once per catalogue.
type dataTerms struct {
	log    *slog.Logger
	holder *index.Holder
	priced bool // --tier-prices sets a price

	mu            sync.Mutex
	ix            *index.Index // the catalogue served and total count
	served, total int
	warned        bool
}

// loaded warns, the first time a catalogue ix with bundled perfumes is
// loaded while prices are set.
func (t *dataTerms) loaded(ix *index.Index) {
	if !t.priced {
		return
	}
	n, total := t.count(ix)
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > 0 && !t.warned {
		t.warned = true
		t.log.Warn("--tier-prices charges for access to the bundled catalogue, whose data is reported to be "+
			bundled.Licence+" (non-commercial, share-alike, credit to the Fragrantica community): "+
			"load data you are licensed to sell with `fragrance import --replace FILE`",
			"bundled_perfumes_served", n, "bundled_perfumes", total, "licence", bundled.LicenceURL)
	}
}

// count returns how many of the bundled catalogue's perfumes ix serves as
// bundled (same id, name and rating count), and how many it has; counted
// once per catalogue.
func (t *dataTerms) count(ix *index.Index) (served, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ix == t.ix {
		return t.served, t.total
	}
	n, total, err := bundled.CountServed(func(id int64, name string, ratingCount int) bool {
		e, ok := ix.ByID(id)
		return ok && e.Name() == name && e.RatingCount == ratingCount
	})
	if err != nil {
		t.log.Warn("could not compare the catalogue with the bundled one", "err", err)
		return 0, 0
	}
	t.ix, t.served, t.total = ix, n, total
	return n, total
}

// credit is the attribution the pricing page shows while the served
// catalogue holds bundled data; none otherwise.
func (t *dataTerms) credit() docs.Credit {
	ix := t.holder.Load()
	if ix == nil {
		return docs.Credit{}
	}
	if n, _ := t.count(ix); n == 0 {
		return docs.Credit{}
	}
	return docs.Credit{Text: bundled.Attribution, Source: bundled.SourceURL, Licence: bundled.Licence, LicenceURL: bundled.LicenceURL}
}
