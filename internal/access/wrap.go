package access

import "net/http"

// Wrap guards h, an /api handler metered under the name endpoint: an HTTP
// adapter over Admit and the refusal builder.
//
//  1. the key is read (X-API-Key, then Authorization: Bearer, then
//     ?api_key=) and checked: 401 missing, invalid, revoked or expired; 403
//     suspended or used from an origin it does not allow; 503 when the store
//     cannot be reached and the key is not cached (fail closed);
//  2. a missing or invalid key from a client IP with too many failed key
//     checks gets 429 instead of 401; a valid key from that IP is served
//     as from any other (one broken client behind a NAT must not lock out
//     the others behind it);
//  3. the key's windows admit the request or it gets 429;
//  4. h runs with the key in its context (Caller), without api_key in its
//     URL, and the rate-limit headers set;
//  5. the request is metered once h has returned; it is noted for the
//     abuse signals (before h runs, or when refused with 429), and a signal
//     of a kind in AbuseConfig.AutoSuspend suspends the key (its next
//     request gets 403).
//
// CORS preflight must be answered before Wrap: it needs no key.
func (g *Guard) Wrap(endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a Admission
		c := g.CallOf(r, endpoint)
		g.serve(w, r, &a, g.admit(r.Context(), &c, &a), h)
	})
}

// WrapSized guards h as Wrap does, for an endpoint whose calls cost more
// than one request each: cost reads what a request counts as against the
// key's windows (Call.Cost) before h runs, from its parameters alone (a
// parameter h will refuse may count as 1). A call that does not fit what
// is left of a window is refused 429 and counts nothing.
func (g *Guard) WrapSized(endpoint string, cost func(r *http.Request) int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a Admission
		c := g.CallOf(r, endpoint)
		c.Cost = cost(r)
		g.serve(w, r, &a, g.admit(r.Context(), &c, &a), h)
	})
}

// WrapUsage guards h as Wrap does, but for a handler that reports on the
// key's own windows (/api/usage), over AdmitUsage: step 3 counts the
// request against the key's usage budget (Config.UsageBudget; 429 with
// violatedPolicies usage_minute or usage_day when it is spent) and only
// peeks at the key's windows, which the rate-limit headers and Caller then
// show as they stand. So the report answers while the key is rate-limited
// and costs it nothing.
func (g *Guard) WrapUsage(endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a Admission
		c := g.CallOf(r, endpoint)
		g.serve(w, r, &a, g.admitUsage(r.Context(), &c, &a), h)
	})
}

// Authenticate guards h with steps 1 and 2 of Wrap only (Check): a request
// whose key is missing, invalid, revoked, expired or suspended is refused
// as Wrap refuses it, before h reads anything; an admitted request counts
// against no window and is not metered.
func (g *Guard) Authenticate(endpoint string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, f := g.Check(r.Context(), g.CallOf(r, endpoint)); f != nil {
			f.Write(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serve answers the refusal f, or runs h for the admission a: with the
// rate-limit headers set, the key and decision in its context, without
// api_key in its URL, and a metered by the status h answered.
func (g *Guard) serve(w http.ResponseWriter, r *http.Request, a *Admission, f *Refusal, h http.Handler) {
	if f != nil {
		f.Write(w, r)
		return
	}
	a.SetHeaders(w.Header())
	// The handler learns the key and decision through the LogInfo the
	// outer middleware put in the context, when there is one: no second
	// copy of the request.
	r2 := r
	if li := a.li; li != nil {
		li.info, li.passed = requestInfo{key: a.Key, decision: a.Decision, clientIP: a.ClientIP}, true
	} else {
		r2 = r.WithContext(withInfo(r.Context(), &requestInfo{key: a.Key, decision: a.Decision, clientIP: a.ClientIP}))
	}
	if mayHaveKeyParam(r.URL.RawQuery) {
		if r2 == r {
			r2 = r.WithContext(r.Context()) // a shallow copy whose URL can change
		}
		u := *r.URL
		u.RawQuery = stripKeyParam(u.RawQuery)
		r2.URL = &u
		r2.RequestURI = u.RequestURI()
	}
	rec, ok := w.(StatusRecorder)
	if !ok {
		rec = &statusWriter{ResponseWriter: w}
	}
	defer func() {
		if p := recover(); p != nil {
			a.Done(http.StatusInternalServerError)
			panic(p)
		}
		a.Done(rec.Status())
	}()
	h.ServeHTTP(rec, r2)
}

// StatusRecorder is a ResponseWriter that knows the status it answered
// with (0 before it answered). The Guard meters a request by the status of
// its writer when the writer is one, and wraps it in its own otherwise.
type StatusRecorder interface {
	http.ResponseWriter
	Status() int
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush passes flushes through for streaming handlers.
func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Status() int { return s.status }
