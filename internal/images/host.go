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

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// Response headers of the image host.
const (
	// immutable is the Cache-Control of every image: URLs never change
	// content in normal operation, so browsers and CDNs keep them a year.
	immutable = "public, max-age=31536000, immutable"
	// shortLived is the Cache-Control of a 404: the image may appear soon
	// (a job finishes, an import adds the perfume).
	shortLived = "public, max-age=60"
	// NobgStatusHeader marks a transparent image that is not made yet.
	NobgStatusHeader = "X-Service-Nobg-Status"
)

// Handler returns the image host. It serves paths relative to where it is
// mounted: /perfume/<id>.jpg and /perfume-nobg/<id>.webp. package server
// mounts it under the image path, or at the root of a listener of its own,
// and gives every answer the image host's CORS headers (Access-Control-
// Allow-Origin: *) and answers preflights. No key is needed.
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
	p, ok := s.cat.PerfumeByID(id)
	if !ok {
		notFound(w, r, "No perfume has this numeric id.")
		return
	}
	var img servedImage
	var err error
	if kind == imgstore.Nobg {
		img, err = s.transparent(r.Context(), id)
	} else {
		img, err = s.photo(r.Context(), p)
	}
	switch {
	case kind == imgstore.Nobg && errors.Is(err, catalog.ErrNotFound):
		h.Set(NobgStatusHeader, "not-processed")
		notFound(w, r, "The transparent image of this perfume has not been processed yet; use image instead.")
		return
	case err != nil:
		s.log.Error("image host", "kind", kind, "id", id, "err", err)
		h.Set("Cache-Control", "no-store")
		problem.Write(w, r, problem.Of(problem.Unavailable, "The image store cannot be reached; try again shortly."))
		return
	}
	h.Set("Content-Type", contentType(kind))
	h.Set("Cache-Control", immutable)
	h.Set("ETag", img.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	// ServeContent answers If-None-Match (304), Range and If-Range (206)
	// and HEAD from the headers set above.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(img.data))
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
func (s *Service) photo(ctx context.Context, p catalog.Perfume) (servedImage, error) {
	data, err := s.store.Image(ctx, imgstore.Photo, p.ID)
	if err == nil {
		return newServed(data), nil
	}
	if !errors.Is(err, catalog.ErrNotFound) {
		return servedImage{}, err
	}
	return s.generated(ctx, p)
}

// generated draws (or takes from the cache) the product image of p. The
// cache key covers everything the drawing depends on, so a catalogue update
// that changes the bottle is drawn afresh.
func (s *Service) generated(ctx context.Context, p catalog.Perfume) (servedImage, error) {
	key := s.painter.Key(p)
	if img, ok := s.cache.get(key); ok {
		return img, nil
	}
	select {
	case s.renders <- struct{}{}:
		defer func() { <-s.renders }()
	case <-ctx.Done():
		return servedImage{}, ctx.Err()
	}
	data, err := encode.JPEG(s.painter.Draw(p, encode.PhotoWidth, encode.PhotoHeight, true), encode.PhotoMaxBytes)
	if err != nil {
		return servedImage{}, fmt.Errorf("generated image of %d: %w", p.ID, err)
	}
	img := newServed(data)
	s.cache.put(key, img)
	return img, nil
}

// transparent returns the stored transparent image of id; an error matching
// catalog.ErrNotFound when it is not made yet.
func (s *Service) transparent(ctx context.Context, id int64) (servedImage, error) {
	data, err := s.store.Image(ctx, imgstore.Nobg, id)
	if err != nil {
		return servedImage{}, err
	}
	return newServed(data), nil
}
