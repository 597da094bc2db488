package main

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/cpubudget"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/neighbours"
)

// neighbourFlags set how the index's neighbour lists are filled after a
// catalogue is loaded (package neighbours).
type neighbourFlags struct {
	workers, cpuBudget *int
}

func addNeighbourFlags(f *flags) neighbourFlags {
	return neighbourFlags{
		workers: f.Int("neighbour-workers", 1, "goroutines ranking every perfume's similar and dupes lists after a catalogue loads (kept in the store, "+
			"so replicas and restarts load them); until a perfume's lists are ready its answers are ranked on demand; 0: never, always on demand"),
		cpuBudget: f.Int("neighbour-cpu-budget", 50, "percent of one core the neighbour workers may use together; 0: no limit"),
	}
}

func (f neighbourFlags) check() error {
	if *f.workers < 0 || *f.workers > 4*runtime.NumCPU() {
		return fmt.Errorf("--neighbour-workers %d: want 0 to %d", *f.workers, 4*runtime.NumCPU())
	}
	if *f.cpuBudget < 0 || *f.cpuBudget > 100*runtime.NumCPU() {
		return fmt.Errorf("--neighbour-cpu-budget %d: want a percentage of one core, 0 to %d", *f.cpuBudget, 100*runtime.NumCPU())
	}
	return nil
}

// neighbourFiller fills the lists of each index the loader swaps in,
// giving up on the previous one's: one fill at a time.
type neighbourFiller struct {
	cfg    neighbours.Config
	parent context.Context
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// newNeighbourFiller returns nil when --neighbour-workers is 0.
func newNeighbourFiller(ctx context.Context, f neighbourFlags, store catalog.NeighbourStore, holder *index.Holder, log *slog.Logger, reg prometheus.Registerer) *neighbourFiller {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fragrance_neighbour_chunks",
			Help: "Chunks of the served catalogue's neighbour lists (1,024 perfumes each)."},
			func() float64 { return float64(chunks(holder, (*index.Index).NeighbourChunks)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "fragrance_neighbour_chunks_ready",
			Help: "Chunks of the served catalogue's neighbour lists in place (loaded or ranked); the rest are ranked on demand."},
			func() float64 { return float64(chunks(holder, (*index.Index).NeighboursReady)) }),
	)
	if *f.workers == 0 {
		return nil
	}
	var budget *cpubudget.Budget
	if *f.cpuBudget > 0 {
		budget = cpubudget.New(float64(*f.cpuBudget)/100, time.Now, cpubudget.Sleep)
	}
	return &neighbourFiller{parent: ctx, cfg: neighbours.Config{Store: store, Workers: *f.workers, Budget: budget, Log: log}}
}

func chunks(h *index.Holder, f func(*index.Index) int) int {
	if ix := h.Load(); ix != nil {
		return f(ix)
	}
	return 0
}

// start fills ix's lists in the background, after stopping the fill of
// the index it replaces. A nil filler does nothing.
func (nf *neighbourFiller) start(ix *index.Index) {
	if nf == nil {
		return
	}
	nf.mu.Lock()
	defer nf.mu.Unlock()
	if nf.cancel != nil {
		nf.cancel()
		<-nf.done
	}
	ctx, cancel := context.WithCancel(nf.parent)
	done := make(chan struct{})
	nf.cancel, nf.done = cancel, done
	go func() {
		defer close(done)
		st, err := neighbours.Fill(ctx, ix, nf.cfg)
		log := nf.cfg.Log
		switch {
		case err == nil:
			log.Info("neighbour lists ready", "perfumes", ix.Len(), "chunks", st.Chunks, "loaded", st.Loaded, "ranked", st.Computed,
				"took", st.Took.Round(time.Millisecond).String())
		case ctx.Err() != nil:
			log.Debug("neighbour lists: fill stopped", "chunks", st.Chunks, "loaded", st.Loaded, "ranked", st.Computed)
		default:
			log.Warn("neighbour lists: fill failed; the rest are ranked on demand", "err", err)
		}
	}()
}
