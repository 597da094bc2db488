package server

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/problem"
)

// requestInfo travels in the context of each request so that inner layers
// can tell the outer access log and metrics what they know.
type requestInfo struct {
	route string
	id    string
}

type infoKey struct{}

// requestState is what the middleware keeps of one request, in one
// allocation. It is also the request's context: the parent's, with the
// request's requestInfo (infoKey) and access.LogInfo (access.LogInfoKey)
// as values, without two more context layers per request.
type requestState struct {
	context.Context
	info     requestInfo
	writer   statusWriter
	log      access.LogInfo // filled by the Guard: key prefix, client IP
	entry    AccessEntry
	idHeader [1]string
}

// Value answers infoKey and access.LogInfoKey from st, and any other key
// from the parent context.
func (st *requestState) Value(key any) any {
	switch key {
	case infoKey{}:
		return &st.info
	case access.LogInfoKey:
		return &st.log
	}
	return st.Context.Value(key)
}

func infoFrom(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

// named names the route of h for logs and metrics.
func named(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		infoFrom(r.Context()).route = name
		h.ServeHTTP(w, r)
	})
}

// statusWriter records the status and size of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
	head   bool // a HEAD request: headers only, whatever the handler writes
	failed bool // a write failed (the client went away mid-answer)
}

// StatusClientClosed is the status the access log and the metrics give a
// request whose client went away before its answer was written in full
// (nginx's 499): not a server error, whatever the handler answered to
// nobody. It never goes on the wire.
const StatusClientClosed = 499

// clientClosed reports whether the client of r went away before its answer
// was complete: its context is cancelled while the handler still runs (the
// connection closed, the HTTP/2 stream was reset), and the handler answered
// nothing, a 5xx (typically its own context's error), or failed to write.
func clientClosed(r *http.Request, sw *statusWriter) bool {
	return r.Context().Err() != nil && (sw.status == 0 || sw.status >= 500 || sw.failed)
}

func (sw *statusWriter) WriteHeader(code int) {
	if sw.status == 0 {
		sw.status = code
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *statusWriter) Write(b []byte) (int, error) {
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	if sw.head {
		return len(b), nil
	}
	n, err := sw.ResponseWriter.Write(b)
	sw.bytes += n
	if err != nil {
		sw.failed = true
	}
	return n, err
}

// Status is the status answered so far, 0 before any: the Guard meters by
// it (access.StatusRecorder) instead of wrapping the writer again.
func (sw *statusWriter) Status() int { return sw.status }

// Unwrap lets http.ResponseController reach the underlying writer.
func (sw *statusWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// middleware wraps the route table with the layers every answer passes:
// panic recovery, request id and version headers, CORS, access log and metrics.
func (s *Server) middleware(h http.Handler) http.Handler {
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "fragrance_http_request_duration_seconds",
		Help:    "Latency of HTTP answers by route and status code.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"route", "code"})
	if s.cfg.Registry != nil {
		s.cfg.Registry.MustRegister(latency)
	}
	observers := newObservers(latency)
	ids := newRequestIDs()
	version := []string{s.cfg.Version}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := &requestState{ // one allocation for what every request needs
			Context: r.Context(),
			info:    requestInfo{id: ids.next(r), route: "unmatched"},
			writer:  statusWriter{ResponseWriter: w, head: r.Method == http.MethodHead},
		}
		ri, sw := &st.info, &st.writer
		st.idHeader[0] = ri.id
		r = r.WithContext(st)
		hd := sw.Header()
		// Canonical names set directly: Header.Set would canonicalize
		// them again on every request.
		hd["X-Request-Id"] = st.idHeader[:]
		hd["X-Api-Version"] = version
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic", "panic", p, "stack", string(debug.Stack()), "request_id", ri.id)
				if sw.status == 0 {
					problem.Write(sw, r, problem.Of(problem.Internal,
						"the request failed on our side; it has been logged"))
				}
			}
			if clientClosed(r, sw) {
				sw.status = StatusClientClosed // logged at info, not counted as 5xx
			}
			d := time.Since(start)
			observers.get(ri.route, sw.status).Observe(d.Seconds())
			level := logLevel(sw.status)
			switch al := s.cfg.AccessLog; {
			case al != nil && al.Enabled(level):
				st.entry.fill(r, st, start.Add(d), level, d)
				al.Log(&st.entry)
			case al == nil && s.log.Enabled(r.Context(), level):
				st.entry.fill(r, st, start.Add(d), level, d)
				s.log.Handler().Handle(r.Context(), st.entry.Record())
			}
		}()
		if s.cors(sw, r) {
			return
		}
		h.ServeHTTP(sw, r)
	})
}

// observers remembers the latency histogram of each route and status code,
// sparing every request the label lookup of the histogram vector.
type observers struct {
	vec *prometheus.HistogramVec
	m   sync.Map // observerKey → prometheus.Observer
}

type observerKey struct {
	route  string
	status int
}

func newObservers(vec *prometheus.HistogramVec) *observers { return &observers{vec: vec} }

func (o *observers) get(route string, status int) prometheus.Observer {
	k := observerKey{route, status}
	if v, ok := o.m.Load(k); ok {
		return v.(prometheus.Observer)
	}
	obs := o.vec.WithLabelValues(route, strconv.Itoa(status))
	if status >= 100 && status < 600 { // bounded: routes × real status codes
		o.m.Store(k, obs)
	}
	return obs
}

// requestIDs makes request ids: a random prefix per server and a counter,
// 24 hexadecimal digits like the random ids they replace, unique without
// asking the operating system for randomness on every request.
type requestIDs struct {
	prefix [6]byte
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	g := &requestIDs{}
	rand.Read(g.prefix[:])
	var seed [8]byte
	rand.Read(seed[:])
	g.n.Store(binary.BigEndian.Uint64(seed[:]) >> 16)
	return g
}

// next keeps a sane incoming X-Request-Id (so a proxy's id flows through)
// and makes a new one otherwise.
func (g *requestIDs) next(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && safeID(id) {
		return id
	}
	var raw [12]byte
	copy(raw[:6], g.prefix[:])
	n := g.n.Add(1)
	binary.BigEndian.PutUint16(raw[6:8], uint16(n>>32))
	binary.BigEndian.PutUint32(raw[8:], uint32(n))
	return hex.EncodeToString(raw[:])
}

func safeID(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
