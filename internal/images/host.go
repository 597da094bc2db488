package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Response headers of the image host.
const (
	// immutable is the Cache-Control of an image asked for at its current
	// version (?v=): that URL never changes content, so browsers and CDNs
	// keep it a year.
	immutable = "public, max-age=31536000, immutable"
	// shortLived is the Cache-Control of an image asked for without its
	// current version (none, or a stale one) and of a 404: the content at
	// that URL may change (an import, a finished job), so caches keep it a
	// minute and then revalidate with the ETag.
	shortLived = "public, max-age=60"
	// NobgStatusHeader marks a transparent image that is not made yet.
	NobgStatusHeader = "X-Service-Nobg-Status"
)

// Handler returns the image host. It serves paths relative to where it is
// mounted: /perfume/<id>.jpg and /perfume-nobg/<id>.webp, each with an
// optional ?v=<version>. package server mounts it under the image path, or
// at the root of a listener of its own, and gives every answer the image
// host's CORS headers (Access-Control-Allow-Origin: *) and answers
// preflights. No key is needed.
func (s *Service) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Service) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	kind, id, ok := parseImagePath(r.URL.Path)
	if !ok {
		notFound(w, r, "No image at this address.")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		problem.Write(w, r, problem.Of(problem.MethodNotAllowed, "Images answer GET, HEAD and OPTIONS."))
		return
	}
	// An unknown id answers before any storage or drawing work.
	p, ok := s.cat.PerfumeByID(id)
	if !ok {
		notFound(w, r, "No perfume has this numeric id.")
		return
	}
	var img servedImage
	var err error
	var tooMany *missError
	if kind == imgstore.Nobg {
		img, err = s.transparent(r.Context(), id)
	} else {
		img, err = s.photo(r, p)
	}
	switch {
	case err == nil:
	case r.Context().Err() != nil:
		// The client has gone: nothing to answer, and no server error
		// (the access log shows 499).
		return
	case kind == imgstore.Nobg && errors.Is(err, catalog.ErrNotFound):
		h.Set(NobgStatusHeader, "not-processed")
		notFound(w, r, "The transparent image of this perfume has not been processed yet; use image instead.")
		return
	case errors.As(err, &tooMany):
		h.Set("Cache-Control", "no-store")
		refusal := access.TooMany("Too many images not drawn yet were asked for from this address; try again after Retry-After seconds.", tooMany.wait)
		// A browser's <img> shows the body of any status: a page browsed
		// fast on a fresh install shows plain bottles, not broken images.
		// The status and Retry-After are the same for every client.
		if ph, perr := s.placeholder(); perr == nil && acceptsImage(r) {
			refusal.SetHeaders(h)
			writePlaceholder(w, r, kind, PlaceholderTooMany, refusal.Status(), ph)
			return
		}
		refusal.Write(w, r)
		return
	case errors.Is(err, errRenderBusy):
		// The pool sheds the drawing, not the picture: a page or an app
		// shows a plain, unlabelled bottle now (never kept: no-store, no
		// ETag), and its real drawing at the next request.
		ph, perr := s.placeholder()
		if perr != nil {
			h.Set("Retry-After", "1")
			h.Set("Cache-Control", "no-store")
			problem.Write(w, r, problem.Of(problem.Unavailable, "The image renderer is busy; try again shortly."))
			return
		}
		h.Set("Cache-Control", "no-store")
		writePlaceholder(w, r, kind, PlaceholderBusy, http.StatusOK, ph)
		return
	default:
		s.log.Error("image host", "kind", kind, "id", id, "err", err)
		h.Set("Cache-Control", "no-store")
		problem.Write(w, r, problem.Of(problem.Unavailable, "The image store cannot be reached; try again shortly."))
		return
	}
	h.Set("Content-Type", contentType(kind))
	if v, ok := parseVersion(queryVersion(r.URL.RawQuery)); ok && v == img.version {
		h.Set("Cache-Control", immutable)
	} else {
		h.Set("Cache-Control", shortLived)
	}
	h.Set("ETag", img.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	// ServeContent answers If-None-Match (304), Range and If-Range (206)
	// and HEAD from the headers set above.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(img.data))
}

// queryVersion is the value of the first v parameter of a raw query; the
// host reads no other parameter.
func queryVersion(raw string) string {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if v, ok := strings.CutPrefix(pair, "v="); ok {
			return v
		}
	}
	return ""
}

// notFound answers a 404 that caches briefly.
func notFound(w http.ResponseWriter, r *http.Request, detail string) {
	w.Header().Set("Cache-Control", shortLived)
	problem.Write(w, r, problem.Of(problem.NotFound, detail))
}

func contentType(kind imgstore.Kind) string {
	if kind == imgstore.Nobg {
		return "image/webp"
	}
	return "image/jpeg"
}

// parseImagePath reads "/perfume/<id>.jpg" or "/perfume-nobg/<id>.webp".
// The id is canonical decimal (no sign, no leading zero), so each image has
// exactly one URL and one CDN cache entry.
func parseImagePath(path string) (imgstore.Kind, int64, bool) {
	var kind imgstore.Kind
	var rest, ext string
	switch {
	case strings.HasPrefix(path, "/perfume/"):
		kind, rest, ext = imgstore.Photo, path[len("/perfume/"):], ".jpg"
	case strings.HasPrefix(path, "/perfume-nobg/"):
		kind, rest, ext = imgstore.Nobg, path[len("/perfume-nobg/"):], ".webp"
	default:
		return "", 0, false
	}
	digits, ok := strings.CutSuffix(rest, ext)
	if !ok || digits == "" || len(digits) > 18 || (len(digits) > 1 && digits[0] == '0') {
		return "", 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return "", 0, false
	}
	return kind, id, true
}

// photo returns the served JPEG of p: the imported photo when there is
// one, else the generated product image.
func (s *Service) photo(r *http.Request, p catalog.Perfume) (servedImage, error) {
	ctx := r.Context()
	data, err := s.store.Image(ctx, imgstore.Photo, p.ID)
	if err == nil {
		img := newServed(data)
		s.noteVersion(ctx, imgstore.Photo, p.ID, img.version)
		return img, nil
	}
	if !errors.Is(err, catalog.ErrNotFound) {
		return servedImage{}, err
	}
	return s.generated(r, p)
}

// noteVersion records the version of a stored image when memory does not
// have it yet: an image stored before versions were recorded, or by
// another process since the last Refresh. API answers then carry it.
func (s *Service) noteVersion(ctx context.Context, kind imgstore.Kind, id int64, v version) {
	if s.versions.get(kind, id) == v {
		return
	}
	if err := s.recordVersion(context.WithoutCancel(ctx), kind, id, v); err != nil {
		s.log.Warn("image host", "kind", kind, "id", id, "err", err)
	}
}

// generated returns the product image drawn from p's data: from memory,
// else from the store (drawn before, by this replica or another), else
// drawn now (a miss, limited per client and by the render pool) and
// stored. Its version names the drawing, so a catalogue update that
// changes the bottle is drawn afresh.
func (s *Service) generated(r *http.Request, p catalog.Perfume) (servedImage, error) {
	ctx := r.Context()
	v := s.drawnVersion(p)
	key := strconv.FormatInt(p.ID, 10) + "/" + v.String()
	if img, ok := s.cache.get(key); ok {
		return img, nil
	}
	if s.versions.get(imgstore.Render, p.ID) == v {
		data, err := s.store.Image(ctx, imgstore.Render, p.ID)
		if err == nil {
			img := newDrawn(data, v)
			s.cache.put(key, img)
			return img, nil
		}
		if !errors.Is(err, catalog.ErrNotFound) {
			return servedImage{}, err
		}
	}
	client := s.clientIP(r)
	f, err := s.renders.start(p.ID, func() error {
		if ok, wait := s.misses.allow(client); !ok {
			return &missError{wait: wait}
		}
		return nil
	}, func() (servedImage, error) { return s.draw(p, v, key) })
	if err != nil {
		return servedImage{}, err
	}
	return f.wait(ctx)
}

// PlaceholderHeader marks an answer that is the plain bottle, not the
// perfume's own image: PlaceholderBusy (200) while the renderer is busy,
// PlaceholderTooMany (429) to a browser's image request beyond the
// client's drawings.
const (
	PlaceholderHeader  = "X-Image-Placeholder"
	PlaceholderBusy    = "renderer-busy"
	PlaceholderTooMany = "too-many-misses"
)

// acceptsImage reports whether r asks for an image by its Accept header,
// as browsers do for <img>; API clients and curl send */* or none.
func acceptsImage(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "image/")
}

// writePlaceholder answers the placeholder bottle ph with status, marked
// with PlaceholderHeader set to why; Cache-Control is the caller's.
func writePlaceholder(w http.ResponseWriter, r *http.Request, kind imgstore.Kind, why string, status int, ph []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType(kind))
	h.Set(PlaceholderHeader, why)
	h.Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusOK {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(ph))
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(ph)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(ph)
	}
}

// placeholder is the plain bottle served while the render pool is full:
// drawn once, the first time it is needed, for no perfume in particular.
func (s *Service) placeholder() ([]byte, error) {
	s.placeholderOnce.Do(func() {
		defer func() {
			if rec := recover(); rec != nil {
				s.placeholderErr = fmt.Errorf("draw the placeholder: internal error: %v", rec)
			}
		}()
		s.placeholderJPEG, s.placeholderErr = encode.JPEG(
			s.painter.Draw(catalog.Perfume{}, encode.PhotoWidth, encode.PhotoHeight, true), encode.PhotoMaxBytes)
	})
	return s.placeholderJPEG, s.placeholderErr
}

// draw draws, keeps and stores the product image of p (in a render slot).
// Storing is best effort: a drawn image is served even when the store
// fails, and drawn again another time.
func (s *Service) draw(p catalog.Perfume, v version, key string) (img servedImage, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("draw the image of %d: internal error: %v", p.ID, rec)
		}
	}()
	data, err := encode.JPEG(s.painter.Draw(p, encode.PhotoWidth, encode.PhotoHeight, true), encode.PhotoMaxBytes)
	if err != nil {
		return servedImage{}, fmt.Errorf("generated image of %d: %w", p.ID, err)
	}
	img = newDrawn(data, v)
	s.cache.put(key, img)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.putServed(ctx, imgstore.Render, p.ID, data, v); err != nil {
		s.log.Warn("keep drawn image", "id", p.ID, "err", err)
	}
	return img, nil
}

// transparent returns the stored transparent image of id; an error matching
// catalog.ErrNotFound when it is not made yet.
func (s *Service) transparent(ctx context.Context, id int64) (servedImage, error) {
	data, err := s.store.Image(ctx, imgstore.Nobg, id)
	if err != nil {
		return servedImage{}, err
	}
	img := newServed(data)
	s.noteVersion(ctx, imgstore.Nobg, id, img.version)
	return img, nil
}
