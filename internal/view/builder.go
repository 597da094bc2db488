package view

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/jsonenc"
	"github.com/fragrance-data/fragrance/internal/search"
)

// Images builds image URLs and knows which transparent images exist (the
// image host meets it).
type Images interface {
	ImageURL(id int64) string
	TransparentURL(id int64) string
	TransparentAvailable(id int64) bool
}

// Builder makes the shapes of answers and pages from the index's entries
// (build.go), with the values derived for them: the public URLs (images,
// buy links), accord colours and perfumer slugs, memoizing those two small
// pure functions, which every answer calls many times. It is shared by all
// requests and never changed after NewBuilder.
type Builder struct {
	base   string
	images Images
	json   jsonImages // images, when it appends its URLs as JSON
	stamp  stamped    // images, when it can say when its answers change
	pre    prefetcher // images, when it can start the loads of many URLs at once
	colors *Memo[string]
	slugs  *Memo[string]
}

// jsonImages is Images that appends its URLs as JSON strings without
// making them (the image host): answers write two for every perfume they
// list.
type jsonImages interface {
	AppendImageURLJSON(b []byte, id int64) []byte
	AppendTransparentURLJSON(b []byte, id int64) []byte
}

// stamped is Images that can say when its answers change (the image
// host).
type stamped interface {
	Stamp() uint64
}

// prefetcher is Images that can start the loads of many perfumes' image
// URLs at once, ahead of writing them (the image host): see
// PrefetchImages.
type prefetcher interface {
	PrefetchImages(ids [PrefetchBatch]int64, n int)
}

// PrefetchBatch is how many perfume ids PrefetchImages takes a call, in an
// array passed by value: a slice would escape through the interface, an
// allocation an answer.
const PrefetchBatch = 16

// NewBuilder returns the Builder of a service whose public base URL is base
// (e.g. https://api.example.com), with images (nil: the default image
// paths under base, none transparent) and accord colours color.
func NewBuilder(base string, images Images, color func(string) string) Builder {
	if color == nil {
		color = func(string) string { return "#CCCCCC" }
	}
	j, _ := images.(jsonImages)
	st, _ := images.(stamped)
	pre, _ := images.(prefetcher)
	return Builder{base: strings.TrimRight(base, "/"), images: images, json: j, stamp: st, pre: pre,
		colors: NewMemo(color), slugs: NewMemo(search.Slugify)}
}

// Base is the public base URL, without a trailing slash.
func (u Builder) Base() string { return u.base }

// ImageHost is the image host the URLs come from; nil when images are at
// their default paths under Base.
func (u Builder) ImageHost() Images { return u.images }

// Image is the bottle photo URL of a perfume.
func (u Builder) Image(id int64) string {
	if u.images == nil {
		return u.base + "/img/perfume/" + strconv.FormatInt(id, 10) + ".jpg"
	}
	return u.images.ImageURL(id)
}

// AppendImageJSON appends Image(id) as a JSON string.
func (u Builder) AppendImageJSON(b []byte, id int64) []byte {
	if u.json != nil {
		return u.json.AppendImageURLJSON(b, id)
	}
	return jsonenc.AppendString(b, u.Image(id))
}

// AppendTransparentJSON appends Transparent(id) as a JSON string.
func (u Builder) AppendTransparentJSON(b []byte, id int64) []byte {
	if u.json != nil {
		return u.json.AppendTransparentURLJSON(b, id)
	}
	return jsonenc.AppendString(b, u.Transparent(id))
}

// PrefetchImages starts the loads that writing the image URLs of the
// perfumes ids[:n] waits for, all at once, for an answer that lists them
// and calls it before writing any (see index.Prefetch): the loads overlap.
// It does nothing when the image host cannot.
func (u Builder) PrefetchImages(ids [PrefetchBatch]int64, n int) {
	if u.pre != nil {
		u.pre.PrefetchImages(ids, n)
	}
}

// Transparent is the transparent-background image URL of a perfume.
func (u Builder) Transparent(id int64) string {
	if u.images == nil {
		return u.base + "/img/perfume-nobg/" + strconv.FormatInt(id, 10) + ".webp"
	}
	return u.images.TransparentURL(id)
}

// TransparentAvailable reports whether the transparent image exists.
func (u Builder) TransparentAvailable(id int64) bool {
	return u.images != nil && u.images.TransparentAvailable(id)
}

// Stamp is a number that changes whenever Image, Transparent or
// TransparentAvailable may answer differently for some perfume, so that
// what keeps their values (the API's answer cache) can tell when to ask
// again. ok is false when the image host cannot tell: the values must then
// be asked for every time. Without an image host they never change.
func (u Builder) Stamp() (stamp uint64, ok bool) {
	switch {
	case u.images == nil:
		return 0, true
	case u.stamp != nil:
		return u.stamp.Stamp(), true
	}
	return 0, false
}

// Buy is the buy-link of a perfume: {base}/goto/{slug}.
func (u Builder) Buy(slug string) string { return u.base + "/goto/" + slug }

// AccordColor is the colour of an accord.
func (u Builder) AccordColor(name string) string { return u.colors.Get(name) }

// PerfumerSlug is the slug of a perfumer's page.
func (u Builder) PerfumerSlug(name string) string { return u.slugs.Get(name) }

// memoMax bounds a Memo: names come from the catalogue (accords,
// perfumers), a few thousand at most, but a bound keeps a strange catalogue
// or many reloads from growing it without end.
const memoMax = 1 << 16

// Memo remembers the results of a pure function of a string, such as an
// accord's colour (which folds the name on every call), a perfumer's slug
// or an accord's encoded JSON. Answers call it for every accord of every
// perfume, so reads must not contend: a sync.Map serves the steady state
// without locks.
type Memo[V any] struct {
	f    func(string) V
	m    sync.Map // string → V
	size atomic.Int64
}

// NewMemo returns a Memo of f.
func NewMemo[V any](f func(string) V) *Memo[V] { return &Memo[V]{f: f} }

// Get returns f(s), remembered.
func (m *Memo[V]) Get(s string) V {
	if v, ok := m.m.Load(s); ok {
		return v.(V)
	}
	v := m.f(s)
	if m.size.Load() < memoMax {
		if _, loaded := m.m.LoadOrStore(s, v); !loaded {
			m.size.Add(1)
		}
	}
	return v
}
