package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/server"
)

// holderCatalogue shows the image host the catalogue currently served, so
// an import's new perfumes get images without a restart.
type holderCatalogue struct{ h *index.Holder }

func (c holderCatalogue) PerfumeByID(id int64) (catalog.Perfume, bool) {
	ix := c.h.Load()
	if ix == nil {
		return catalog.Perfume{}, false
	}
	e, ok := ix.ByID(id)
	if !ok {
		return catalog.Perfume{}, false
	}
	return e.Perfume(), true
}

func (c holderCatalogue) PerfumeBySlug(slug string) (catalog.Perfume, bool) {
	ix := c.h.Load()
	if ix == nil {
		return catalog.Perfume{}, false
	}
	e, err := ix.Perfume(slug)
	if err != nil {
		return catalog.Perfume{}, false
	}
	return e.Perfume(), true
}

// Loaded reports whether the holder has served a catalogue yet.
func (c holderCatalogue) Loaded() bool { return c.h.Load() != nil }

func (c holderCatalogue) IDs() []int64 {
	if ix := c.h.Load(); ix != nil {
		return ix.IDs()
	}
	return nil
}

// Epoch changes whenever the served catalogue does: the image host then
// works out the versions of drawn images afresh.
func (c holderCatalogue) Epoch() any { return c.h.Load() }

// imageHostFlags are serve's flags of the image host's limits and of its
// background worker.
type imageHostFlags struct {
	cpuBudget       *int
	renderSlots     *int
	renderBudget    *int
	missesPerMinute *int
}

func newImageHostFlags(f *flags) imageHostFlags {
	return imageHostFlags{
		cpuBudget:       f.Int("image-cpu-budget", 25, "percent of one core the background-removal workers may use together (they rest after each job to stay within it); 0: no limit"),
		renderSlots:     f.Int("image-render-slots", 0, "product images drawn at once for images not drawn yet (default: one per core but one); 8 more may wait, beyond that 503"),
		renderBudget:    f.Int("image-render-budget", 25, "percent of one core drawing images not drawn yet may use (drawn images are kept; beyond the budget misses wait, then 503); 0: no limit"),
		missesPerMinute: f.Int("image-misses-per-minute", 60, "drawings of images not drawn yet one client IP may cause per minute (and at once); beyond that 429"),
	}
}

// check refuses values that make no sense.
func (f imageHostFlags) check() error {
	switch {
	case *f.cpuBudget < 0 || *f.cpuBudget > 100*runtime.NumCPU():
		return fmt.Errorf("--image-cpu-budget %d: want a percentage of one core, 0 to %d", *f.cpuBudget, 100*runtime.NumCPU())
	case *f.renderBudget < 0 || *f.renderBudget > 100*runtime.NumCPU():
		return fmt.Errorf("--image-render-budget %d: want a percentage of one core, 0 to %d", *f.renderBudget, 100*runtime.NumCPU())
	case *f.renderSlots < 0:
		return fmt.Errorf("--image-render-slots %d: want 0 (the default) or more", *f.renderSlots)
	case *f.missesPerMinute < 1:
		return fmt.Errorf("--image-misses-per-minute %d: want 1 or more", *f.missesPerMinute)
	}
	return nil
}

// imageHost is the image service of serve and, with --image-addr, its own
// listener.
type imageHost struct {
	svc    *images.Service
	server *http.Server // nil when images share the main listener
	worker *images.Worker
	done   chan struct{}
}

// startImages builds the image service, starts its background worker and,
// when ln is not nil (--image-addr), serves it there. imgBase is what image
// URLs start with (see derivePublicURLs).
func startImages(ctx context.Context, c *serveConfig, store backend, ref *bundled.Reference, holder *index.Holder, imgBase string,
	ln net.Listener, limits listenerLimits, log *slog.Logger, accessLog server.AccessLog) (*imageHost, error) {
	if err := c.imageHost.check(); err != nil {
		return nil, err
	}
	trusted, err := access.ParseTrustedProxies(*c.trustedProxies)
	if err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	imgStore, err := openImageStore(store, *c.dsn, *c.imageDir)
	if err != nil {
		return nil, err
	}
	svc, err := images.New(ctx, images.Config{
		BaseURL: imgBase, AccordColor: ref.Color, Logger: log,
		RenderSlots:     *c.imageHost.renderSlots,
		RenderBudget:    renderBudget(*c.imageHost.renderBudget),
		MissesPerMinute: *c.imageHost.missesPerMinute, MissBurst: *c.imageHost.missesPerMinute,
		// The Guard's rule: X-Forwarded-For counts from trusted proxies only,
		// and an IPv6 client is its prefix (--ipv6-prefix).
		ClientIP: func(r *http.Request) netip.Addr {
			return access.LimitAddr(access.ClientIP(r, trusted), *c.ipv6Prefix)
		},
	}, imgStore, holderCatalogue{holder})
	if err != nil {
		return nil, err
	}
	h := &imageHost{svc: svc, done: make(chan struct{})}
	if ln != nil {
		h.server = newHTTPServer(server.NewImageHost(server.Config{Images: svc.Handler(), Logger: log, AccessLog: accessLog, Version: version}), limits, log)
		go h.server.Serve(ln)
		log.Info("images listening", "addr", ln.Addr().String())
	}
	workers, queueAll := *c.imageWorkers, *c.imageQueueAll
	if workers <= 0 {
		// No processing here (another replica or the command line does it);
		// availability is still refreshed, and nothing is queued.
		workers, queueAll = -1, false
	}
	h.worker = svc.NewWorker(images.WorkerConfig{Workers: workers, QueueAll: queueAll,
		CPUBudget: float64(*c.imageHost.cpuBudget) / 100})
	go func() {
		defer close(h.done)
		if err := h.worker.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("image worker stopped", "err", err)
		}
	}()
	return h, nil
}

// shutdown stops the image listener and waits for the worker to finish
// the job in hand (ctx, the serve context, is already cancelled).
func (h *imageHost) shutdown(ctx context.Context) error {
	var err error
	if h.server != nil {
		err = h.server.Shutdown(ctx)
	}
	select {
	case <-h.done:
	case <-ctx.Done():
		err = errors.Join(err, fmt.Errorf("image worker: %w", ctx.Err()))
	}
	return err
}

// renderBudget is --image-render-budget as images.Config wants it.
func renderBudget(percent int) float64 {
	if percent == 0 {
		return -1 // no limit
	}
	return float64(percent) / 100
}
