package main

import (
	"log/slog"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

// dataTerms follows how much of the served catalogue is the bundled
// catalogue, whose data is reported to be CC BY-NC-SA 4.0: the pricing page
// then shows the attribution the licence asks for, and serve warns once
// when --tier-prices charges for access to it.
type dataTerms struct {
	log    *slog.Logger
	priced bool // --tier-prices sets a price
	served atomic.Int64
	warned bool // only the loader's goroutine calls loaded
}

// loaded counts the bundled perfumes catalogue ix serves as bundled, and
// warns the first time it finds some while prices are set.
func (t *dataTerms) loaded(ix *index.Index) {
	n, total, err := bundled.CountServed(func(id int64, name string, ratingCount int) bool {
		e, ok := ix.ByID(id)
		return ok && e.Name() == name && e.RatingCount == ratingCount
	})
	if err != nil {
		t.log.Warn("could not compare the catalogue with the bundled one", "err", err)
		return
	}
	t.served.Store(int64(n))
	if n > 0 && t.priced && !t.warned {
		t.warned = true
		t.log.Warn("--tier-prices charges for access to the bundled catalogue, whose data is reported to be "+
			bundled.Licence+" (non-commercial, share-alike, credit to the Fragrantica community): "+
			"load data you are licensed to sell with `fragrance import --replace FILE`",
			"bundled_perfumes_served", n, "bundled_perfumes", total, "licence", bundled.LicenceURL)
	}
}

// credit is the attribution the pricing page shows while the served
// catalogue holds bundled data; none otherwise.
func (t *dataTerms) credit() docs.Credit {
	if t.served.Load() == 0 {
		return docs.Credit{}
	}
	return docs.Credit{Text: bundled.Attribution, Source: bundled.SourceURL, Licence: bundled.Licence, LicenceURL: bundled.LicenceURL}
}
