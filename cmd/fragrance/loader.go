package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
)

// catalogueLoader fills an empty store from the bundled catalogue, builds
// the in-memory index, and rebuilds and swaps it whenever the store's
// catalogue version changes (an import by this or another process).
type catalogueLoader struct {
	store       catalog.Store
	ref         *bundled.Reference
	holder      *index.Holder
	log         *slog.Logger
	curatedPath string
	// seedFile fills a new database instead of the bundled catalogue.
	seedFile string
	version  int64
	// changed, when not nil, signals that the store announced a new
	// catalogue (PostgreSQL NOTIFY); the ticker stays as a fallback.
	changed chan struct{}
	// neighbours fills each loaded index's neighbour lists (nil: none).
	neighbours *neighbourFiller
	// terms learns of each catalogue loaded (nil: nobody).
	terms *dataTerms
}

// notify tells the loader the store may hold a newer catalogue. It never
// blocks and may be called from any goroutine.
func (l *catalogueLoader) notify() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// run loads the catalogue, then polls for newer versions until ctx ends.
// Only the first load's failure is fatal; later failures keep the current
// index and are retried at the next tick.
func (l *catalogueLoader) run(ctx context.Context, every time.Duration) error {
	start := time.Now()
	seeded, err := seedIfEmpty(ctx, l.store, l.ref, l.seedFile)
	if err != nil {
		return fmt.Errorf("fill new database: %w", err)
	}
	if seeded {
		l.log.Info("filled a new database", "from", seedName(l.seedFile), "took", time.Since(start).Round(time.Millisecond).String())
	}
	if err := l.reload(ctx); err != nil {
		return err
	}
	var tick <-chan time.Time // nil: no polling, only notifications
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		case <-l.changed:
		}
		if err := l.reloadIfChanged(ctx); err != nil && ctx.Err() == nil {
			l.log.Warn("catalogue reload failed; keeping the current catalogue", "err", err)
		}
	}
}

// reloadIfChanged rebuilds the index when the store's version moved.
func (l *catalogueLoader) reloadIfChanged(ctx context.Context) error {
	v, err := l.store.CatalogueVersion(ctx)
	if err != nil {
		return err
	}
	if v == l.version {
		return nil
	}
	return l.reload(ctx)
}

// reload builds a new index from the store and swaps it in atomically:
// requests in flight keep the index they started with.
func (l *catalogueLoader) reload(ctx context.Context) error {
	start := time.Now()
	v, err := l.store.CatalogueVersion(ctx)
	if err != nil {
		return err
	}
	ix, err := buildIndex(ctx, l.store, l.ref, l.curatedPath)
	if err != nil {
		return err
	}
	l.holder.Store(ix)
	l.neighbours.start(ix)
	l.version = v
	l.log.Info("catalogue loaded", "perfumes", ix.Len(), "version", v, "took", time.Since(start).Round(time.Millisecond).String())
	if l.terms != nil {
		l.terms.loaded(ix)
	}
	return nil
}

// buildIndex reads every perfume from the store and builds the index. The
// perfumes stream from the store into the index one at a time, so a reload
// holds the current index and the new one, never the catalogue a third
// time.
func buildIndex(ctx context.Context, store catalog.Store, ref *bundled.Reference, curatedPath string) (*index.Index, error) {
	curated, err := readCurated(curatedPath)
	if err != nil {
		return nil, err
	}
	b := index.NewBuilder(index.Options{AccordColor: ref.Color, Curated: curated}, 0)
	err = store.EachPerfume(ctx, func(p *catalog.Perfume) error {
		b.Add(p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load catalogue: %w", err)
	}
	return b.Index(), nil
}

// seedName names the catalogue a new database is filled from, for logs.
func seedName(path string) string {
	if path == "" {
		return "the bundled catalogue"
	}
	return path
}
