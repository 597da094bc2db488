package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

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

func (c holderCatalogue) IDs() []int64 {
	if ix := c.h.Load(); ix != nil {
		return ix.IDs()
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
// when asked, its own listener. base is the API's public base URL.
func startImages(ctx context.Context, c *serveConfig, store backend, ref *bundled.Reference, holder *index.Holder, base string, log *slog.Logger, accessLog server.AccessLog) (*imageHost, error) {
	imgStore, err := openImageStore(store, *c.dsn, *c.imageDir)
	if err != nil {
		return nil, err
	}
	imgBase := strings.TrimRight(*c.imageBaseURL, "/")
	var ln net.Listener
	if *c.imageAddr != "" {
		ln, err = net.Listen("tcp", *c.imageAddr)
		if err != nil {
			return nil, fmt.Errorf("--image-addr %s: %w", *c.imageAddr, err)
		}
		if imgBase == "" {
			imgBase = "http://" + ln.Addr().String()
		}
	} else if imgBase == "" {
		imgBase = base + *c.imagePath
	}
	svc, err := images.New(ctx, images.Config{BaseURL: imgBase, AccordColor: ref.Color, Logger: log}, imgStore, holderCatalogue{holder})
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return nil, err
	}
	h := &imageHost{svc: svc, done: make(chan struct{})}
	if ln != nil {
		h.server = &http.Server{Handler: server.NewImageHost(server.Config{Images: svc.Handler(), Logger: log, AccessLog: accessLog, Version: version}),
			ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
		go h.server.Serve(ln)
		log.Info("images listening", "addr", ln.Addr().String())
	}
	workers, queueAll := *c.imageWorkers, *c.imageQueueAll
	if workers <= 0 {
		// No processing here (another replica or the command line does it);
		// availability is still refreshed, and nothing is queued.
		workers, queueAll = -1, false
	}
	h.worker = svc.NewWorker(images.WorkerConfig{Workers: workers, QueueAll: queueAll})
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
