package web

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// The security headers of every page. An HTML page gets its own
// Content-Security-Policy with a fresh nonce (pageCSP); every other answer
// of the pages (assets, sitemap, redirects, errors) gets strictCSP, which
// allows nothing to run.
const (
	strictCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	// nonceLen is the length of a nonce: 16 random bytes in base64 (RFC 4648
	// without padding), 22 characters.
	nonceLen = 22
)

// setSecurityHeaders writes the headers every answer of the pages carries.
func setSecurityHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()")
	h.Set("Content-Security-Policy", strictCSP)
}

// newNonce returns a fresh CSP nonce.
func newNonce() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// csp is the policy of an HTML page with nonce: scripts only from the
// service with the nonce, styles only from the service's stylesheet (no
// inline style anywhere), images from the service and its image host,
// nothing framing the page, fetches to the service, its public base URL
// and its image host. With the operator's analytics snippet in the
// page (after consent), its scripts run by the nonce and may load others
// ('strict-dynamic') and send to any https address.
func (s *Ground) csp(nonce string, analytics bool) string {
	var b strings.Builder
	b.Grow(400)
	b.WriteString("default-src 'self'; script-src 'self' 'nonce-")
	b.WriteString(nonce)
	b.WriteString("'")
	if analytics {
		b.WriteString(" 'strict-dynamic' https:")
	}
	b.WriteString("; style-src 'self'; img-src 'self' data:")
	if s.imageOrigin != "" {
		b.WriteString(" ")
		b.WriteString(s.imageOrigin)
	}
	if analytics {
		b.WriteString(" https:")
	}
	// The playground (web/docs) fetches the API at the public base URL and
	// the image host, which answer CORS requests from any origin: when a
	// page is reached under another address than the base URL (a second
	// name, a proxy's), 'self' alone would refuse the playground's requests.
	b.WriteString("; connect-src 'self'")
	for _, o := range [...]string{s.apiOrigin, s.imageOrigin} {
		if o != "" {
			b.WriteString(" ")
			b.WriteString(o)
		}
	}
	if analytics {
		b.WriteString(" https:")
	}
	b.WriteString("; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	return b.String()
}

// originOf is the scheme://host of an absolute URL, "" for a relative one.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Secure wraps a page handler: the security headers on every answer, and
// a panic becomes the 500 page (logged with its detail, shown without).
// Every area's routes go through it (see Register of each area).
func (s *Ground) Secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		rec := &wroteWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "page panic", "panic", p, "path", r.URL.Path)
				if !rec.wrote {
					s.ServerError(w, r, nil)
				}
			}
		}()
		h.ServeHTTP(rec, r)
	})
}

// wroteWriter remembers whether an answer has begun.
type wroteWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *wroteWriter) WriteHeader(code int) { w.wrote = true; w.ResponseWriter.WriteHeader(code) }
func (w *wroteWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *wroteWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
