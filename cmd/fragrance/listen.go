package main

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/problem"
)

// listenerLimits are the timeouts and header bound every listener of serve
// gets (the main one, --image-addr and --metrics-addr), so a slow or stalled
// client is cut off on each of them alike.
type listenerLimits struct {
	// readHeader bounds reading the request line and headers (slow-loris).
	readHeader time.Duration
	// read bounds reading the whole request, body included: the service
	// takes no bodies, so a slow one is only ever an attack.
	read time.Duration
	// write bounds the answer from the end of the headers; an image is
	// tens of KB, rendered in tens of ms, so a minute covers slow mobiles.
	write time.Duration
	// idle bounds a kept-alive connection between requests.
	idle time.Duration
}

// maxHeaderBytes bounds the request line and headers of every listener
// (net/http's default is 1 MB; real clients send under 8 KB).
const maxHeaderBytes = 64 << 10

// limitFlags defines the flags of listenerLimits.
func limitFlags(f *flags) *listenerLimitFlags {
	return &listenerLimitFlags{
		readHeader: f.Duration("read-header-timeout", 10*time.Second, "every listener: time to read a request's headers"),
		read:       f.Duration("read-timeout", 30*time.Second, "every listener: time to read a whole request"),
		write:      f.Duration("write-timeout", 60*time.Second, "every listener: time to write an answer"),
		idle:       f.Duration("idle-timeout", 120*time.Second, "every listener: how long an idle keep-alive connection stays open"),
	}
}

// listenerLimitFlags holds the parsed flags of listenerLimits.
type listenerLimitFlags struct {
	readHeader, read, write, idle *time.Duration
}

// limits checks the flags: every timeout must be positive, since zero
// would mean none.
func (lf *listenerLimitFlags) limits() (listenerLimits, error) {
	l := listenerLimits{readHeader: *lf.readHeader, read: *lf.read, write: *lf.write, idle: *lf.idle}
	for name, d := range map[string]time.Duration{
		"--read-header-timeout": l.readHeader, "--read-timeout": l.read, "--write-timeout": l.write, "--idle-timeout": l.idle,
	} {
		if d <= 0 {
			return l, fmt.Errorf("%s %v: must be above 0 (a listener without it can be held open by a slow client)", name, d)
		}
	}
	return l, nil
}

// newHTTPServer is the one place an http.Server of serve is built.
func newHTTPServer(h http.Handler, l listenerLimits, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// listeners are serve's open listen sockets: the main one, and the image
// and metrics ones when asked for (nil otherwise).
type listeners struct {
	main, image, metrics net.Listener
}

// listenAll opens every listener serve needs before anything starts, so a
// busy port fails the start at once.
func listenAll(c *serveConfig) (*listeners, error) {
	lns := &listeners{}
	for _, l := range []struct {
		flag, addr string
		ln         *net.Listener
	}{
		{"--addr", *c.addr, &lns.main},
		{"--image-addr", *c.imageAddr, &lns.image},
		{"--metrics-addr", *c.metricsAddr, &lns.metrics},
	} {
		if l.addr == "" && l.flag != "--addr" {
			continue
		}
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			lns.closeAll()
			return nil, fmt.Errorf("%s %s: %w", l.flag, l.addr, err)
		}
		*l.ln = ln
	}
	return lns, nil
}

// imageAddr is the image listener's address, nil without one.
func (l *listeners) imageAddr() net.Addr {
	if l.image == nil {
		return nil
	}
	return l.image.Addr()
}

// closeAll closes every open listener (closing one whose server has shut
// down is harmless).
func (l *listeners) closeAll() {
	for _, ln := range []net.Listener{l.main, l.image, l.metrics} {
		if ln != nil {
			ln.Close()
		}
	}
}

// metricsAccess decides where /metrics is served: on --metrics-addr, and
// on the main listener only behind --metrics-token. With neither it is
// served nowhere: the metrics name endpoints, key tiers and error rates,
// which are nobody's business on a public listener.
type metricsAccess struct {
	token string
}

// minMetricsToken is the shortest --metrics-token accepted.
const minMetricsToken = 16

func newMetricsAccess(token string) (metricsAccess, error) {
	if token != "" && len(token) < minMetricsToken {
		return metricsAccess{}, fmt.Errorf("--metrics-token: at least %d characters, please (a long random string)", minMetricsToken)
	}
	return metricsAccess{token: token}, nil
}

// handler wraps h with the token check when a token is set.
func (m metricsAccess) handler(h http.Handler) http.Handler {
	if m.token == "" {
		return h
	}
	want := []byte("Bearer " + m.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "/metrics needs Authorization: Bearer <the --metrics-token>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// public is the /metrics handler of the main listener: h when a token
// guards it, else nil (not mounted).
func (m metricsAccess) public(h http.Handler) http.Handler {
	if m.token == "" {
		return nil
	}
	return h
}

// log says where the metrics are, once at start-up.
func (m metricsAccess) log(log *slog.Logger, ownListener bool) {
	switch {
	case m.token != "":
		log.Info("metrics on the main listener at /metrics, behind --metrics-token")
	case !ownListener:
		log.Info("metrics off: give --metrics-addr (e.g. 127.0.0.1:9090) or --metrics-token to serve /metrics")
	}
}

// metricsMux is the handler of --metrics-addr: /metrics and nothing else.
func metricsMux(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", problem.GetOnly(h))
	return mux
}
