// Package neighbours fills a served index's neighbour lists (the most
// similar perfumes and the best dupes of every perfume; see
// index.ComputeNeighbours) in the background after a load: it loads what a
// store already holds for the catalogue (another replica's work, or this
// process's before a restart), ranks the rest at low priority within a CPU
// budget, and stores each chunk as it is ranked, so that replicas share
// the work and a restart costs nothing. Until a perfume's lists are in
// place its answers are ranked on demand, exactly as they would be from
// the lists.
package neighbours

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/cpubudget"
	"github.com/fragrance-data/fragrance/internal/index"
)

// Config sets how lists are filled.
type Config struct {
	// Store keeps and shares the lists; nil: ranked here, kept in memory
	// only.
	Store catalog.NeighbourStore
	// Workers is how many chunks are ranked at once (at least 1).
	Workers int
	// Budget bounds the workers together (nil: no limit).
	Budget *cpubudget.Budget
	// Poll is how often, while ranking, the store is asked for chunks
	// others have stored since (default 10 s).
	Poll time.Duration
	Log  *slog.Logger
}

// Stats is what a fill did.
type Stats struct {
	Chunks, Loaded, Computed, Refused int
	Took                              time.Duration
}

// Fill puts every chunk of ix's lists in place and returns when all are,
// or when ctx ends (ctx.Err()). Store failures are logged and cost only
// work: a chunk that cannot be read is ranked, one that cannot be written
// is kept in memory. When every chunk is in place, chunks stored for
// other catalogues are dropped.
func Fill(ctx context.Context, ix *index.Index, cfg Config) (Stats, error) {
	start := time.Now()
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 10 * time.Second
	}
	f := &filler{ix: ix, cfg: cfg, log: log, key: ix.NeighbourKey()}
	st := Stats{Chunks: ix.NeighbourChunks()}
	f.load(ctx)
	// Each replica starts at its own place, so replicas filling one new
	// catalogue together mostly rank different chunks and share them.
	n := ix.NeighbourChunks()
	off := 0
	if n > 0 {
		off = rand.IntN(n)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				c := (off + i) % n
				if ix.NeighbourChunkReady(c) {
					continue
				}
				f.poll(ctx)
				if ix.NeighbourChunkReady(c) {
					continue
				}
				cfg.Budget.Wait(ctx)
				if ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				b, err := ix.ComputeNeighbours(c)
				cfg.Budget.Spend(time.Since(t0))
				if err != nil { // a chunk number out of range: a bug
					log.Error("neighbour lists: rank chunk", "chunk", c, "err", err)
					continue
				}
				f.computed.Add(1)
				if cfg.Store != nil {
					if err := cfg.Store.PutNeighbourChunk(ctx, f.key, c, b); err != nil && ctx.Err() == nil {
						log.Warn("neighbour lists: store chunk; kept in memory", "chunk", c, "err", err)
					}
				}
			}
		})
	}
	wg.Wait()
	st.Loaded, st.Computed, st.Refused = int(f.loaded.Load()), int(f.computed.Load()), int(f.refused.Load())
	st.Took = time.Since(start)
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if ix.NeighboursReady() != n { // every chunk was taken: only ctx stops early
		return st, fmt.Errorf("neighbour lists: %d of %d chunks ready", ix.NeighboursReady(), n)
	}
	if cfg.Store != nil {
		if err := cfg.Store.DropNeighbours(ctx, f.key); err != nil && ctx.Err() == nil {
			log.Warn("neighbour lists: drop the lists of other catalogues", "err", err)
		}
	}
	return st, nil
}

// Load puts in place the chunks store holds for ix's catalogue, ranking
// nothing, and returns how many it loaded: for a short-lived process (the
// MCP server on stdio) that should not spend minutes ranking but can use
// what a server stored. Chunks it cannot read are left to be ranked on
// demand.
func Load(ctx context.Context, ix *index.Index, store catalog.NeighbourStore, log *slog.Logger) int {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f := &filler{ix: ix, cfg: Config{Store: store}, log: log, key: ix.NeighbourKey()}
	f.load(ctx)
	return int(f.loaded.Load())
}

type filler struct {
	ix  *index.Index
	cfg Config
	log *slog.Logger
	key string

	mu                        sync.Mutex // one poll at a time
	polled                    time.Time
	loaded, computed, refused atomic.Int64
}

// poll loads what others stored, at most every cfg.Poll.
func (f *filler) poll(ctx context.Context) {
	if f.cfg.Store == nil {
		return
	}
	f.mu.Lock()
	due := time.Since(f.polled) >= f.cfg.Poll
	f.mu.Unlock()
	if due {
		f.load(ctx)
	}
}

// load puts in place every stored chunk not yet in place.
func (f *filler) load(ctx context.Context) {
	if f.cfg.Store == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polled = time.Now()
	cs, err := f.cfg.Store.NeighbourChunks(ctx, f.key)
	if err != nil {
		if ctx.Err() == nil {
			f.log.Warn("neighbour lists: list stored chunks; ranking them here", "err", err)
		}
		return
	}
	for _, c := range cs {
		if f.ix.NeighbourChunkReady(c) || ctx.Err() != nil {
			continue
		}
		b, err := f.cfg.Store.NeighbourChunk(ctx, f.key, c)
		if err == nil {
			err = f.ix.LoadNeighbours(c, b)
			if err != nil {
				f.refused.Add(1)
			}
		}
		switch {
		case err == nil:
			f.loaded.Add(1)
		case errors.Is(err, catalog.ErrNotFound) || ctx.Err() != nil:
		default:
			f.log.Warn("neighbour lists: stored chunk not used; ranking it here", "chunk", c, "err", err)
		}
	}
}
