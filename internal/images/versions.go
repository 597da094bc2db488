package images

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// RenderVersion names the drawing and encoding of generated product
// images. It is part of every generated image's version: bump it when a
// change to package bottle or encode changes the pixels or the bytes, so
// that the URLs of drawn bottles change with them.
const RenderVersion = 1

// version is the content version an image URL carries ("?v=" and 12
// hexadecimal digits): the first 48 bits of the SHA-256 of a stored image's
// bytes, or of a drawn image's drawing (its perfume's data and
// RenderVersion). Zero means none is known. It is a number, not a string,
// so that the versions of a whole catalogue are pointer-free maps the
// garbage collector does not walk.
type version uint64

// versionDigits is how many hexadecimal digits a version has.
const versionDigits = 12

// versionOfSum is the version of a SHA-256 sum.
func versionOfSum(sum *[32]byte) version {
	v := version(uint64(sum[0])<<40 | uint64(sum[1])<<32 | uint64(sum[2])<<24 |
		uint64(sum[3])<<16 | uint64(sum[4])<<8 | uint64(sum[5]))
	if v == 0 {
		v = 1 // zero means none
	}
	return v
}

// versionOf is the version of stored image bytes.
func versionOf(data []byte) version {
	sum := sha256.Sum256(data)
	return versionOfSum(&sum)
}

// String is the version as URLs and the store spell it: 12 hexadecimal digits.
func (v version) String() string {
	return string(v.appendTo(make([]byte, 0, versionDigits)))
}

func (v version) appendTo(b []byte) []byte {
	const digits = "0123456789abcdef"
	for shift := 4 * (versionDigits - 1); shift >= 0; shift -= 4 {
		b = append(b, digits[(uint64(v)>>shift)&0xf])
	}
	return b
}

// parseVersion reads 12 lowercase hexadecimal digits; anything else (an
// old or foreign spelling, a URL's garbage) is no version.
func parseVersion(s string) (version, bool) {
	if len(s) != versionDigits {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 16, 64)
	if err != nil || n == 0 {
		return 0, false
	}
	return version(n), true
}

// servedKinds are the kinds whose versions the host keeps in memory.
var servedKinds = [...]imgstore.Kind{imgstore.Photo, imgstore.Nobg, imgstore.Render}

// versionSet is the recorded version of every stored image of the served
// kinds, in memory, so that building an image URL reads no file. It is
// loaded from the store (Refresh) and updated as this process stores
// images.
type versionSet struct {
	mu sync.RWMutex
	m  [len(servedKinds)]map[int64]version
	// changes counts the changes of m, each after it is made (Stamp).
	changes atomic.Uint64
}

func kindIndex(kind imgstore.Kind) int {
	for i, k := range servedKinds {
		if k == kind {
			return i
		}
	}
	return -1
}

func (vs *versionSet) get(kind imgstore.Kind, id int64) version {
	i := kindIndex(kind)
	if i < 0 {
		return 0
	}
	vs.mu.RLock()
	v := vs.m[i][id]
	vs.mu.RUnlock()
	return v
}

func (vs *versionSet) set(kind imgstore.Kind, id int64, v version) {
	i := kindIndex(kind)
	if i < 0 {
		return
	}
	vs.mu.Lock()
	if vs.m[i] == nil {
		vs.m[i] = make(map[int64]version)
	}
	old, had := vs.m[i][id]
	vs.m[i][id] = v
	vs.mu.Unlock()
	if !had || old != v {
		vs.changes.Add(1)
	}
}

// load replaces the set with the store's versions.
func (vs *versionSet) load(ctx context.Context, store imgstore.Versions) error {
	var fresh [len(servedKinds)]map[int64]version
	for i, kind := range servedKinds {
		recorded, err := store.ImageVersions(ctx, kind)
		if err != nil {
			return fmt.Errorf("images: load image versions: %w", err)
		}
		m := make(map[int64]version, len(recorded))
		for id, s := range recorded {
			if v, ok := parseVersion(s); ok {
				m[id] = v
			}
		}
		fresh[i] = m
	}
	vs.mu.Lock()
	same := true
	for i := range fresh {
		same = same && maps.Equal(fresh[i], vs.m[i])
	}
	vs.m = fresh
	vs.mu.Unlock()
	if !same {
		vs.changes.Add(1)
	}
	return nil
}

// epochCatalogue is a Catalogue that can change (the served index): Epoch
// returns a different value whenever PerfumeByID may answer differently.
// A Catalogue without it is taken as never changing.
type epochCatalogue interface {
	Epoch() any
}

// drawnVersions remembers the version of each perfume's drawn image for
// one state of the catalogue: computing it takes the perfume's data, which
// the served index has to put together. Every image URL of every answer
// looks one up, so a catalogue whose ids are small numbers (as imported
// catalogues' are) keeps them in an array by id, read without a lock or a
// hash (a list page looks up dozens, and a lookup in a large map costs a
// cache miss or two). Other ids are kept in the map.
type drawnVersions struct {
	epoch any
	dense []atomic.Uint64 // by id; 0: not worked out yet
	mu    sync.RWMutex
	m     map[int64]version
}

// newDrawnVersions returns an empty memo for a catalogue of ids (nil: not
// known), with an array by id when the largest is at most denseFactor
// times as many as there are, plus denseSlack.
func newDrawnVersions(epoch any, ids []int64) *drawnVersions {
	d := &drawnVersions{epoch: epoch, m: make(map[int64]version)}
	var top int64 = -1
	for _, id := range ids {
		top = max(top, id)
	}
	if top >= 0 && top < denseFactor*int64(len(ids))+denseSlack {
		d.dense = make([]atomic.Uint64, top+1)
	}
	return d
}

// The largest id for which drawnVersions keeps an array, against the
// number of ids: 8 bytes an id, so at most 32 a perfume beside its map.
const (
	denseFactor = 4
	denseSlack  = 1 << 16
)

// get returns id's version, if it was worked out.
func (d *drawnVersions) get(id int64) (version, bool) {
	if id >= 0 && id < int64(len(d.dense)) {
		v := version(d.dense[id].Load())
		return v, v != 0
	}
	d.mu.RLock()
	v, ok := d.m[id]
	d.mu.RUnlock()
	return v, ok
}

// put keeps v as id's version and returns it. A zero version (one sum in
// 2^48) is not kept for an id of the array, where zero means "not worked
// out": it is worked out again next time.
func (d *drawnVersions) put(id int64, v version) version {
	if id >= 0 && id < int64(len(d.dense)) {
		d.dense[id].Store(uint64(v))
		return v
	}
	d.mu.Lock()
	d.m[id] = v
	d.mu.Unlock()
	return v
}

// drawnMemo holds the drawnVersions of the current catalogue.
type drawnMemo struct {
	cur atomic.Pointer[drawnVersions]
	// mu lets one request make the memo of a new catalogue (it reads
	// every id and allocates the array) while the others wait for it,
	// rather than each make one and replace the others'.
	mu sync.Mutex
	// epochs counts the catalogues it started a memo for (Stamp).
	epochs atomic.Uint64
}

// of returns the memo of epoch, starting a new one when the catalogue
// changed (ids lists the catalogue's ids then).
func (dm *drawnMemo) of(epoch any, ids func() []int64) *drawnVersions {
	if d := dm.cur.Load(); d != nil && d.epoch == epoch {
		return d
	}
	dm.mu.Lock()
	defer dm.mu.Unlock()
	if d := dm.cur.Load(); d != nil && d.epoch == epoch {
		return d
	}
	d := newDrawnVersions(epoch, ids())
	dm.cur.Store(d)
	dm.epochs.Add(1)
	return d
}

// drawnMemoOf is the memo of the catalogue as it is now.
func (s *Service) drawnMemoOf() *drawnVersions {
	var epoch any
	if ec, ok := s.cat.(epochCatalogue); ok {
		epoch = ec.Epoch()
	}
	return s.drawn.of(epoch, s.cat.IDs)
}

// drawnVersion is the version of p's drawn image: its drawing (everything
// Draw depends on) and RenderVersion.
func (s *Service) drawnVersion(p catalog.Perfume) version {
	memo := s.drawnMemoOf()
	if v, ok := memo.get(p.ID); ok {
		return v
	}
	return memo.put(p.ID, s.drawingVersion(p))
}

// drawingVersion computes the version of p's drawing.
func (s *Service) drawingVersion(p catalog.Perfume) version {
	sum := sha256.Sum256([]byte("render/" + strconv.Itoa(RenderVersion) + "|" + s.painter.Key(p)))
	return versionOfSum(&sum)
}

// photoVersion is the version of the JPEG of id the host serves: the
// imported photo's, else the drawn image's; zero for an unknown perfume.
// It is called for every image URL of every answer written, so the drawn
// version is looked up by id first: putting a perfume's data together is
// left to the first call after each catalogue change.
func (s *Service) photoVersion(id int64) version {
	if v := s.versions.get(imgstore.Photo, id); v != 0 {
		return v
	}
	memo := s.drawnMemoOf()
	if v, ok := memo.get(id); ok {
		return v
	}
	p, ok := s.cat.PerfumeByID(id)
	if !ok {
		return 0
	}
	return memo.put(id, s.drawingVersion(p))
}

// PrefetchImages starts the loads of the drawn versions of ids at once,
// for an answer about to write their image URLs: they are anywhere in the
// array by id, and each version looked up only when its URL is written
// waits for the memory.
// The array's length is view.PrefetchBatch, which the image host meets
// without importing view (an answer writes at most that many a call).
func (s *Service) PrefetchImages(ids [16]int64, n int) {
	dense := s.drawnMemoOf().dense
	for _, id := range ids[:min(n, len(ids))] {
		if id >= 0 && id < int64(len(dense)) {
			dense[id].Load()
		}
	}
}

// putServed stores the bytes of a served kind and records their version,
// in the store and in memory.
func (s *Service) putServed(ctx context.Context, kind imgstore.Kind, id int64, data []byte, v version) error {
	if err := s.store.PutImage(ctx, kind, id, data); err != nil {
		return err
	}
	return s.recordVersion(ctx, kind, id, v)
}

// recordVersion records v as the version of an image, in the store and in
// memory.
func (s *Service) recordVersion(ctx context.Context, kind imgstore.Kind, id int64, v version) error {
	if err := s.store.SetImageVersion(ctx, kind, id, v.String()); err != nil {
		return fmt.Errorf("images: record the version of %s %d: %w", kind, id, err)
	}
	s.versions.set(kind, id, v)
	return nil
}

// etagOf is the strong ETag of image bytes: half their SHA-256, so it is
// the same on every replica that has (or draws) the same image.
func etagOf(sum *[32]byte) string {
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}
