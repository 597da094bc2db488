package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/onewrite"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// bufPool recycles answer buffers. Buffers that grew past maxPooledBuf
// (a long brand or note list) are dropped rather than kept for ever.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledBuf = 1 << 20

// writeJSON encodes v with encoding/json as the 200 answer; the hand-written
// encoders (writeAnswer) serve the hot endpoints, this the rare ones. The
// body is encoded before the header is written, so an encoding failure can
// still become a 500.
func writeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	buf := bytes.NewBuffer(make([]byte, 0, 512))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeOK(w, r, buf.Bytes(), nil)
}

// answer writes the 200 answer named key (the route and its parameters):
// the kept one when the answer cache holds it, else the one encode makes,
// which is then kept if it is worth its memory. Requests for an answer being made wait for it. When
// encode fails (an unknown slug) nothing is kept and the error is returned.
func (a *API) answer(w http.ResponseWriter, r *http.Request, ix *index.Index, key string, encode func(en *encoder, b []byte) ([]byte, error)) error {
	g := a.answers.generation(ix)
	if g == nil {
		return a.answerUncached(w, r, ix, encode)
	}
	fz, p, lead := g.lookup(key)
	switch {
	case fz != nil:
	case !lead:
		select {
		case <-p.done:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		if p.err != nil {
			return p.err
		}
		fz = p.fz
	default:
		var err error
		fz, err = a.freeze(g, key, p, encode)
		if err != nil {
			return err
		}
	}
	a.count(fz.counts)
	if fz.items == nil { // no splices: written as kept
		body, length := fz.answer(a.render.urls, nil)
		return writeOK(w, r, body, length)
	}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	body, length := fz.answer(a.render.urls, (*bp)[:0])
	*bp = body // put together in the buffer
	return writeOK(w, r, body, length)
}

// freeze makes the answer to key, offers it to the cache with what it
// cost to make (the wall time of the index's work and the encoding, on the
// monotonic clock) and hands it to the requests waiting for it (also when
// encode panics: they get an error).
func (a *API) freeze(g *answerGen, key string, p *pendingAnswer, encode func(en *encoder, b []byte) ([]byte, error)) (fz *frozen, err error) {
	err = errAnswerFailed
	start := time.Now()
	defer func() { g.finish(key, p, fz, err, time.Since(start)) }()
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	en := a.render.encoderFor(g.ix)
	defer en.release()
	b, err := encode(&en, (*bp)[:0])
	if err != nil {
		return nil, err
	}
	*bp = append(b, '\n')
	return freezeEncoded(*bp, &en, a.render.urls), nil
}

// errAnswerFailed is what waiting requests get when the request making
// their answer failed without an error (a panic, answered 500).
var errAnswerFailed = errors.New("the answer could not be made")

// answerUncached encodes and writes an answer without the cache.
func (a *API) answerUncached(w http.ResponseWriter, r *http.Request, ix *index.Index, encode func(en *encoder, b []byte) ([]byte, error)) error {
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	en := a.render.encoderFor(ix)
	defer en.release()
	b, err := encode(&en, (*bp)[:0])
	if err != nil {
		return err
	}
	*bp = append(b, '\n')
	a.count(en.counts)
	out := bufPool.Get().(*[]byte)
	defer putBuf(out)
	*out, _ = appendFilled((*out)[:0], *bp, en.holes, a.render.urls, nil)
	return writeOK(w, r, *out, nil)
}

// count tells the meter what serving an answer counts: a perfume viewed,
// a search that found nothing.
func (a *API) count(c answerCounts) {
	if a.cfg.Usage == nil {
		return
	}
	if c.viewed != 0 {
		a.cfg.Usage.View(c.viewed, c.viewKind)
	}
	if c.emptySearch != "" {
		a.cfg.Usage.EmptySearch(c.emptySearch)
	}
}

// putBuf returns a buffer to the pool unless it grew too large to keep.
func putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledBuf {
		bufPool.Put(bp)
	}
}

// writeOK writes body as a 200 JSON answer with its Content-Length,
// given as the header value when it is at hand (nil: computed).
func writeOK(w http.ResponseWriter, r *http.Request, body []byte, length []string) error {
	if length == nil {
		length = []string{strconv.Itoa(len(body))}
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	err := onewrite.Write(w, r, body)
	if err == nil || errors.Is(err, http.ErrBodyNotAllowed) { // HEAD
		return nil
	}
	return bodyNotWritten{err}
}

// bodyNotWritten is an answer whose body could not be written after its
// status was sent: the client has gone (a closed or reset connection).
// Nothing can be told to it any more, and it is not a failure of ours.
type bodyNotWritten struct{ err error }

func (e bodyNotWritten) Error() string { return "writing the answer: " + e.err.Error() }
func (e bodyNotWritten) Unwrap() error { return e.err }

// The caching headers of a keyed route's answers, shared by every answer:
// the header map holds them as they are, so they must never be modified
// (appending to a full slice copies it).
var (
	cachePrivate = []string{"private"}
	cacheNoStore = []string{"no-store"}
	varyKey      = []string{"X-API-Key, Authorization"}
)

// keyedAnswer marks every answer of h, a keyed route, as the key's own
// before h runs, so the answer cache's hits, the pre-encoded answers and
// the refusals carry it alike: Cache-Control private (no-store for a
// report on the key itself, noStore: /api/usage, which names the key and
// its counts) and Vary on the headers that carry the key, added to what
// the outer middleware put there (CORS's Origin). Keyless routes and the
// images never pass through it.
func keyedAnswer(h http.Handler, noStore bool) http.Handler {
	cache := cachePrivate
	if noStore {
		cache = cacheNoStore
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd["Cache-Control"] = cache
		if v := hd["Vary"]; len(v) > 0 {
			hd["Vary"] = append(v[:len(v):len(v)], varyKey...)
		} else {
			hd["Vary"] = varyKey
		}
		h.ServeHTTP(w, r)
	})
}

// contentTypeJSON is shared by every answer; the header map holds it as
// is, so it must never be modified.
var contentTypeJSON = []string{"application/json; charset=utf-8"}

// handle adapts a handler that returns an error: the error becomes a problem
// answer, 5xx logged with detail and shown to the client without it.
func (a *API) handle(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		var gone bodyNotWritten
		switch {
		case err == nil:
		case errors.As(err, &gone): // the status is sent: no problem answer can follow
			a.log.DebugContext(r.Context(), "answer not written", "err", gone.err, "path", r.URL.Path)
		case r.Context().Err() != nil && errors.Is(err, r.Context().Err()):
			// The client went away while its answer was being made (by
			// another request it waited for): nobody is left to answer.
			a.log.DebugContext(r.Context(), "request abandoned", "err", err, "path", r.URL.Path)
		default:
			a.writeError(w, r, err)
		}
	})
}

// writeError maps an error to its problem answer.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *catalog.ParamError
	var pes catalog.ParamErrors
	switch {
	case errors.As(err, &pes):
		problem.Write(w, r, invalid(pes))
	case errors.As(err, &pe):
		problem.Write(w, r, invalid(catalog.ParamErrors{pe}))
	case errors.Is(err, catalog.ErrNotFound):
		problem.Write(w, r, problem.Of(problem.NotFound, err.Error()))
	case errors.Is(err, catalog.ErrUnavailable):
		a.log.ErrorContext(r.Context(), "unavailable", "err", err, "path", r.URL.Path)
		problem.Write(w, r, problem.Of(problem.Unavailable,
			"a backing service cannot be reached; try again shortly"))
	default:
		a.log.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path)
		problem.Write(w, r, problem.Of(problem.Internal,
			"the request failed on our side; it has been logged"))
	}
}

// invalid is the 400 problem for a list of invalid parameters.
func invalid(pes catalog.ParamErrors) *problem.Problem {
	p := problem.Of(problem.InvalidParameter, "")
	for i, e := range pes {
		p.Errors = append(p.Errors, problem.FieldError{Parameter: e.Parameter, Message: e.Message})
		if i > 0 {
			p.Detail += "; "
		}
		p.Detail += e.Parameter + ": " + e.Message
	}
	return p
}

// notFound answers unknown paths under /api.
func (a *API) notFound(w http.ResponseWriter, r *http.Request) error {
	problem.Write(w, r, problem.Of(problem.NotFound,
		"no endpoint at "+strconv.Quote(r.URL.Path)+"; see /api/openapi.json"))
	return nil
}
