// Package images is the image host and the image pre-processing of the
// service.
//
// Every perfume has two image URLs (see the seed and the API contract):
//
//	{base}/perfume/<numeric_id>.jpg        always answers: the imported photo,
//	                                       else a product image drawn from the data
//	{base}/perfume-nobg/<numeric_id>.webp  transparent background; 404 with
//	                                       X-Service-Nobg-Status: not-processed
//	                                       until its job is done
//
// A Service ties the parts together: Handler serves the URLs (host.go),
// ImageURL and TransparentURL build them for API answers,
// TransparentAvailable answers from an in-memory set, ImportDir takes in
// photos (photos.go), and a Worker runs the background-removal jobs kept in
// the store (imgstore.Jobs; worker.go).
//
// The work on pixels is in sub-packages, which images imports and which
// never import it:
//
//	bottle   draws the product image of a perfume without a photo
//	cutout   removes the background of a photo (cutouttest: its test shots)
//	encode   makes the served bytes: JPEG within a byte budget, transparent
//	         WebP with a palette, at the served sizes
//	pixel    the rounding of channel values the others share
package images

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// Catalogue is the perfume data the image host needs. The service adapts
// its in-memory index to it; NewCatalogue builds one from a slice.
type Catalogue interface {
	// PerfumeByID returns the perfume with that numeric id.
	PerfumeByID(id int64) (catalog.Perfume, bool)
	// PerfumeBySlug returns the perfume with that slug.
	PerfumeBySlug(slug string) (catalog.Perfume, bool)
	// IDs returns every perfume's numeric id.
	IDs() []int64
}

// NewCatalogue returns a Catalogue over ps (which it does not modify).
func NewCatalogue(ps []catalog.Perfume) Catalogue {
	c := &sliceCatalogue{byID: make(map[int64]int, len(ps)), bySlug: make(map[string]int, len(ps)), ps: ps}
	for i, p := range ps {
		c.byID[p.ID] = i
		c.bySlug[p.Slug] = i
	}
	return c
}

type sliceCatalogue struct {
	ps     []catalog.Perfume
	byID   map[int64]int
	bySlug map[string]int
}

// PerfumeByID implements Catalogue.
func (c *sliceCatalogue) PerfumeByID(id int64) (catalog.Perfume, bool) {
	i, ok := c.byID[id]
	if !ok {
		return catalog.Perfume{}, false
	}
	return c.ps[i], true
}

// PerfumeBySlug implements Catalogue.
func (c *sliceCatalogue) PerfumeBySlug(slug string) (catalog.Perfume, bool) {
	i, ok := c.bySlug[slug]
	if !ok {
		return catalog.Perfume{}, false
	}
	return c.ps[i], true
}

// IDs implements Catalogue.
func (c *sliceCatalogue) IDs() []int64 {
	out := make([]int64, len(c.ps))
	for i, p := range c.ps {
		out[i] = p.ID
	}
	return out
}

// Config configures a Service. The zero value works: relative URLs under
// /img, the default liquid colour, a 64 MiB cache and no logging.
type Config struct {
	// BaseURL is what image URLs in API answers start with, without a
	// trailing slash: "https://img.example.com", or the API's own base URL
	// plus the mount path, e.g. "https://api.example.com/img". Default "/img".
	BaseURL string
	// AccordColor maps an accord name to "#RRGGBB"; it colours the liquid of
	// generated bottles. Nil gives every bottle a pale amber.
	AccordColor func(accord string) string
	// CacheBytes bounds the memory holding generated images, which are made
	// on first request. Default 64 MiB (some 2,500 images).
	CacheBytes int64
	// Logger receives storage errors and job failures. Default: discard.
	Logger *slog.Logger
}

// Service is the image host. It is safe for concurrent use.
type Service struct {
	baseURL string
	store   imgstore.Store
	cat     Catalogue
	log     *slog.Logger
	painter *bottle.Painter
	cache   *lru
	// renders bounds concurrent drawing of generated images, so a crawler
	// missing the CDN cannot take every core.
	renders chan struct{}
	avail   availability
	// wake tells idle workers that jobs were enqueued in this process.
	wake chan struct{}
}

// New returns a Service over store and cat and loads the set of perfumes
// whose transparent image is available.
func New(ctx context.Context, cfg Config, store imgstore.Store, cat Catalogue) (*Service, error) {
	painter, err := bottle.NewPainter(cfg.AccordColor)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "/img"
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Service{
		baseURL: strings.TrimRight(cfg.BaseURL, "/"),
		store:   store,
		cat:     cat,
		log:     cfg.Logger,
		painter: painter,
		cache:   newLRU(cfg.CacheBytes),
		renders: make(chan struct{}, max(1, min(4, runtime.NumCPU()))),
		wake:    make(chan struct{}, 1),
	}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// ImageURL is the JPEG URL of the perfume with numeric id.
func (s *Service) ImageURL(id int64) string {
	return s.baseURL + "/perfume/" + strconv.FormatInt(id, 10) + ".jpg"
}

// TransparentURL is the transparent WebP URL of the perfume with numeric id.
func (s *Service) TransparentURL(id int64) string {
	return s.baseURL + "/perfume-nobg/" + strconv.FormatInt(id, 10) + ".webp"
}

// TransparentAvailable reports whether the transparent image of id has been
// made (its job is done). It reads an in-memory set: cheap enough for every
// perfume of every API answer.
func (s *Service) TransparentAvailable(id int64) bool { return s.avail.has(id) }

// Refresh reloads the availability set from the store. Workers call it
// after jobs and periodically, which also picks up jobs other replicas or
// the command line finished.
func (s *Service) Refresh(ctx context.Context) error {
	ids, err := s.store.DoneJobIDs(ctx)
	if err != nil {
		return fmt.Errorf("images: load available transparent images: %w", err)
	}
	s.avail.replace(ids)
	return nil
}

// Enqueue queues background-removal jobs for ids and wakes this process's
// idle workers.
func (s *Service) Enqueue(ctx context.Context, ids []int64) error {
	if err := s.store.EnqueueJobs(ctx, ids); err != nil {
		return fmt.Errorf("images: %w", err)
	}
	for _, id := range ids {
		s.avail.remove(id)
	}
	s.wakeWorkers()
	return nil
}

// wakeWorkers tells one idle worker of this process to look for jobs; it
// never blocks.
func (s *Service) wakeWorkers() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Known reports whether id is a perfume of the catalogue.
func (s *Service) Known(id int64) bool {
	_, ok := s.cat.PerfumeByID(id)
	return ok
}

// AllIDs returns the numeric id of every perfume of the catalogue.
func (s *Service) AllIDs() []int64 { return s.cat.IDs() }

// JobCounts returns the number of background-removal jobs in each state.
func (s *Service) JobCounts(ctx context.Context) (map[imgstore.State]int, error) {
	counts, err := s.store.JobCounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("images: %w", err)
	}
	return counts, nil
}

// availability is the set of perfumes whose transparent image is done.
type availability struct {
	mu  sync.RWMutex
	set map[int64]struct{}
}

func (a *availability) has(id int64) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	_, ok := a.set[id]
	return ok
}

func (a *availability) replace(ids []int64) {
	set := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	a.mu.Lock()
	a.set = set
	a.mu.Unlock()
}

func (a *availability) add(id int64) {
	a.mu.Lock()
	if a.set == nil {
		a.set = make(map[int64]struct{})
	}
	a.set[id] = struct{}{}
	a.mu.Unlock()
}

func (a *availability) remove(id int64) {
	a.mu.Lock()
	delete(a.set, id)
	a.mu.Unlock()
}
