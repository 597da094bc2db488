// Package images is the image host and the image pre-processing of the
// service.
//
// Every perfume has two image URLs (see the seed and the API contract):
//
//	{base}/perfume/<numeric_id>.jpg?v=<version>        always answers: the imported
//	                                                   photo, else a product image
//	                                                   drawn from the data
//	{base}/perfume-nobg/<numeric_id>.webp?v=<version>  transparent background; 404
//	                                                   with X-Service-Nobg-Status:
//	                                                   not-processed until its job
//	                                                   is done (no v until then)
//
// The version (versions.go) is a short hash of the content, recorded in the
// store (imgstore.Versions) and kept in memory, so the URL changes when the
// image does and an answer at the current version may be cached for ever;
// any other v, or none, is answered with a short max-age and the ETag.
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
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/jsonenc"
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
	// Loaded reports whether a catalogue has been loaded. Before, every
	// perfume is missing, so the background-removal worker waits instead
	// of failing the jobs it would claim.
	Loaded() bool
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

// Loaded implements Catalogue: a slice is loaded from the start.
func (c *sliceCatalogue) Loaded() bool { return true }

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
	// RenderSlots is how many product images are drawn at once. Default:
	// one per core but one (at least one), so drawing never takes every
	// core from the API.
	RenderSlots int
	// RenderQueue is how many more drawings may wait for a slot; a miss
	// beyond is answered 503 with Retry-After at once. Default 8.
	RenderQueue int
	// RenderBudget is the share of one core drawing may use, averaged
	// (0.5: half a core). Default 0.25 (a quarter of a core, like the background worker); negative: no limit.
	RenderBudget float64
	// MissesPerMinute and MissBurst limit the drawings one client IP may
	// cause (requests for images neither stored nor drawn yet): MissBurst
	// at once, then MissesPerMinute a minute; beyond, 429 with
	// Retry-After. Defaults 60 and 60.
	MissesPerMinute, MissBurst int
	// ClientIP says which client a request comes from (the service passes
	// the Guard's rule with its trusted proxies). Default: the peer address.
	ClientIP func(r *http.Request) netip.Addr
	// Now is the clock of the miss limiter. Default time.Now.
	Now func() time.Time
}

// Service is the image host. It is safe for concurrent use.
type Service struct {
	baseURL string
	// baseJSON is baseURL escaped for a JSON string.
	baseJSON string
	store    imgstore.Store
	cat      Catalogue
	log      *slog.Logger
	painter  *bottle.Painter

	placeholderOnce sync.Once
	placeholderJPEG []byte
	placeholderErr  error
	cache           *lru
	// renders bounds the drawing of generated images and misses the
	// drawings per client, so a crawler missing the CDN cannot take the
	// cores (renders.go).
	renders  *renderPool
	misses   *missLimiter
	clientIP func(r *http.Request) netip.Addr
	versions versionSet
	drawn    drawnMemo
	avail    availability
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
	if cfg.RenderSlots <= 0 {
		cfg.RenderSlots = max(1, runtime.NumCPU()-1)
	}
	if cfg.RenderQueue <= 0 {
		cfg.RenderQueue = 8
	}
	if cfg.RenderBudget == 0 {
		cfg.RenderBudget = 0.25
	}
	if cfg.MissesPerMinute <= 0 {
		cfg.MissesPerMinute = 60
	}
	if cfg.MissBurst <= 0 {
		cfg.MissBurst = 60
	}
	if cfg.ClientIP == nil {
		cfg.ClientIP = peerIP
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Service{
		baseURL:  strings.TrimRight(cfg.BaseURL, "/"),
		store:    store,
		cat:      cat,
		log:      cfg.Logger,
		painter:  painter,
		cache:    newLRU(cfg.CacheBytes),
		renders:  newRenderPool(cfg.RenderSlots, cfg.RenderQueue, cfg.RenderBudget),
		misses:   newMissLimiter(cfg.MissesPerMinute, cfg.MissBurst, maxMissClients, cfg.Now),
		clientIP: cfg.ClientIP,
		wake:     make(chan struct{}, 1),
	}
	s.baseJSON = string(jsonenc.AppendStringBody(nil, s.baseURL))
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// maxMissClients bounds the clients the miss limiter remembers.
const maxMissClients = 1 << 16

// ImageURL is the JPEG URL of the perfume with numeric id, with the
// version of what it serves: the imported photo's, else the drawing's.
func (s *Service) ImageURL(id int64) string {
	return s.url("/perfume/", id, ".jpg", s.photoVersion(id))
}

// TransparentURL is the transparent WebP URL of the perfume with numeric
// id, with its version once it is made.
func (s *Service) TransparentURL(id int64) string {
	return s.url("/perfume-nobg/", id, ".webp", s.versions.get(imgstore.Nobg, id))
}

// AppendImageURLJSON appends ImageURL(id) as a JSON string, without
// making the string: API answers write one for every perfume they list.
func (s *Service) AppendImageURLJSON(b []byte, id int64) []byte {
	return s.appendURLJSON(b, "/perfume/", id, ".jpg", s.photoVersion(id))
}

// AppendTransparentURLJSON appends TransparentURL(id) as a JSON string.
func (s *Service) AppendTransparentURLJSON(b []byte, id int64) []byte {
	return s.appendURLJSON(b, "/perfume-nobg/", id, ".webp", s.versions.get(imgstore.Nobg, id))
}

// appendURLJSON is url as a JSON string appended to b: the same URL, after
// the base URL escaped for JSON (dir and ext need no escaping).
func (s *Service) appendURLJSON(b []byte, dir string, id int64, ext string, v version) []byte {
	return append(appendURL(append(b, '"'), s.baseJSON, dir, id, ext, v), '"')
}

func (s *Service) url(dir string, id int64, ext string, v version) string {
	b := make([]byte, 0, len(s.baseURL)+len(dir)+20+len(ext)+3+versionDigits)
	return string(appendURL(b, s.baseURL, dir, id, ext, v))
}

// appendURL appends the URL of an image: base, dir, id and ext, and its
// version when it has one.
func appendURL(b []byte, base, dir string, id int64, ext string, v version) []byte {
	b = append(append(b, base...), dir...)
	b = append(strconv.AppendInt(b, id, 10), ext...)
	if v != 0 {
		b = v.appendTo(append(b, "?v="...))
	}
	return b
}

// TransparentAvailable reports whether the transparent image of id has been
// made (its job is done). It reads an in-memory set: cheap enough for every
// perfume of every API answer.
func (s *Service) TransparentAvailable(id int64) bool { return s.avail.has(id) }

// Stamp is a number that changes whenever ImageURL, TransparentURL or
// TransparentAvailable may answer differently for some perfume: an image
// stored or its version recorded, a transparent image made or lost, a
// Refresh that found the store changed, another catalogue served. Answers
// that keep the URLs and flags they wrote (the API's answer cache) write
// them again only when it moved.
func (s *Service) Stamp() uint64 {
	s.drawnMemoOf() // notices another catalogue
	return s.avail.changes.Load() + s.versions.changes.Load() + s.drawn.epochs.Load()
}

// Refresh reloads the availability set and the image versions from the
// store. Workers call it periodically, which also picks up the jobs and
// imports other replicas or the command line finished.
func (s *Service) Refresh(ctx context.Context) error {
	ids, err := s.store.DoneJobIDs(ctx)
	if err != nil {
		return fmt.Errorf("images: load available transparent images: %w", err)
	}
	if err := s.versions.load(ctx, s.store); err != nil {
		return err
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
	// changes counts the changes of set, each after it is made (Stamp).
	changes atomic.Uint64
}

func (a *availability) has(id int64) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	_, ok := a.set[id]
	return ok
}

// replace makes ids the set; a Refresh that finds what the set holds
// changes nothing (every minute, on every replica).
func (a *availability) replace(ids []int64) {
	set := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	a.mu.Lock()
	same := len(set) == len(a.set)
	for id := range set {
		if !same {
			break
		}
		_, same = a.set[id]
	}
	a.set = set
	a.mu.Unlock()
	if !same {
		a.changes.Add(1)
	}
}

func (a *availability) add(id int64) {
	a.mu.Lock()
	if a.set == nil {
		a.set = make(map[int64]struct{})
	}
	_, had := a.set[id]
	a.set[id] = struct{}{}
	a.mu.Unlock()
	if !had {
		a.changes.Add(1)
	}
}

func (a *availability) remove(id int64) {
	a.mu.Lock()
	_, had := a.set[id]
	delete(a.set, id)
	a.mu.Unlock()
	if had {
		a.changes.Add(1)
	}
}
