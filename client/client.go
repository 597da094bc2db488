// Package client is the Go client of the fragrance data service's API:
// every endpoint typed, generated from the service's OpenAPI document
// (api.gen.go, by oapi-codegen), and by hand what every application
// writes again otherwise: the key from an argument or FRAGRANCE_API_KEY,
// problems as typed errors (*Error, with the code, detail and request id),
// 429 and 503 retried after their Retry-After, page iterators, image URLs
// with the documented fallback, and Sync, which copies the catalogue
// through the change feed and keeps it up to date.
//
//	c, err := client.New("http://127.0.0.1:8080") // the key from FRAGRANCE_API_KEY
//	p, err := c.Perfume(ctx, "dior-sauvage")
package client

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// Client calls the API with one key. It is safe for concurrent use.
type Client struct {
	api  *ClientWithResponses
	base string
	key  string
	do   *retryDoer
}

// Option changes a Client New makes.
type Option func(*Client)

// WithKey sets the API key (default: the FRAGRANCE_API_KEY environment
// variable).
func WithKey(key string) Option { return func(c *Client) { c.key = key } }

// WithHTTP sets the HTTP client requests go through (default:
// http.DefaultClient).
func WithHTTP(hc *http.Client) Option { return func(c *Client) { c.do.http = hc } }

// WithRetries sets how many times a request answered 429 or 503 is tried
// again, each after the answer's Retry-After (default 3; 0: never, the
// answer is returned as an *Error at once).
func WithRetries(n int) Option { return func(c *Client) { c.do.retries = max(n, 0) } }

// WithMaxRetryWait bounds the wait before a retry (default 60 s): an answer
// asking for a longer one is returned as an *Error instead of waited for.
func WithMaxRetryWait(d time.Duration) Option { return func(c *Client) { c.do.maxWait = d } }

// New returns a client of the service at baseURL (e.g.
// "https://fragrance.example.com"). Without WithKey, the key is read from
// FRAGRANCE_API_KEY; a client without a key can call only the keyless
// endpoints (the site search, the document, health, images).
func New(baseURL string, opts ...Option) (*Client, error) {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: os.Getenv("FRAGRANCE_API_KEY"),
		do: &retryDoer{http: http.DefaultClient, retries: 3, maxWait: time.Minute}}
	for _, o := range opts {
		o(c)
	}
	api, err := NewClientWithResponses(c.base, WithHTTPClient(c.do), WithRequestEditorFn(c.authorize))
	if err != nil {
		return nil, fmt.Errorf("fragrance client: %w", err)
	}
	c.api = api
	return c, nil
}

// API is the generated client: every endpoint of the document, with its
// typed parameters and answers (status codes left to the caller).
func (c *Client) API() *ClientWithResponses { return c.api }

// authorize sends the key in the X-API-Key header.
func (c *Client) authorize(_ context.Context, r *http.Request) error {
	if c.key != "" {
		r.Header.Set("X-API-Key", c.key)
	}
	return nil
}

// result is the answer of a generated call: ok when the status is 200,
// else the problem it carries as an *Error.
func result[T any](res *http.Response, body []byte, ok *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	if res.StatusCode == http.StatusOK && ok != nil {
		return ok, nil
	}
	return nil, problemOf(res, body)
}

// retryDoer sends requests, trying a GET or HEAD answered 429 or 503 again
// after its Retry-After, at most retries times and never waiting longer
// than maxWait for one.
type retryDoer struct {
	http    *http.Client
	retries int
	maxWait time.Duration
}

// Do sends r (see retryDoer).
func (d *retryDoer) Do(r *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		res, err := d.http.Do(r)
		if err != nil || (res.StatusCode != http.StatusTooManyRequests && res.StatusCode != http.StatusServiceUnavailable) ||
			attempt >= d.retries || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			return res, err
		}
		wait, ok := retryAfter(res.Header)
		if !ok || wait > d.maxWait {
			return res, nil
		}
		res.Body.Close()
		t := time.NewTimer(wait)
		select {
		case <-r.Context().Done():
			t.Stop()
			return nil, r.Context().Err()
		case <-t.C:
		}
	}
}

// retryAfter reads a Retry-After of seconds (the service's form); a
// missing or unreadable one is no retry.
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	var s int
	if _, err := fmt.Sscan(v, &s); err != nil || s < 0 {
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), 0), true
		}
		return 0, false
	}
	return time.Duration(s) * time.Second, true
}
