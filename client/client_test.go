package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetriesAfterRetryAfter: a 429 with Retry-After is waited out and
// tried again; with retries off, or a wait past the bound, it is an *Error
// with its code, detail, request id and wait.
func TestRetriesAfterRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "fds_test" {
			t.Errorf("key header %q", r.Header.Get("X-API-Key"))
		}
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("X-Request-Id", "req-1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"type":"/docs/errors#rate_limited","title":"Rate limit exceeded","status":429,"detail":"60 requests a minute","code":"rate_limited","error":"Rate limit exceeded","retryAfter":1}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[],"total":0}`)
	}))
	defer srv.Close()
	ctx := context.Background()

	c, err := New(srv.URL, WithKey("fds_test"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Brands(ctx, nil); err != nil {
		t.Fatalf("Brands after a 429: %v", err)
	}
	if calls.Load() != 2 || time.Since(start) < time.Second {
		t.Errorf("%d calls in %v; want the 429 retried after its second", calls.Load(), time.Since(start))
	}

	for name, opt := range map[string]Option{"off": WithRetries(0), "bounded": WithMaxRetryWait(500 * time.Millisecond)} {
		calls.Store(0)
		c, _ := New(srv.URL, WithKey("fds_test"), opt)
		_, err := c.Brands(ctx, nil)
		var e *Error
		if !errors.As(err, &e) || e.Status != 429 || e.Code != "rate_limited" || e.Detail != "60 requests a minute" ||
			e.RequestID != "req-1" || e.RetryAfter != time.Second || calls.Load() != 1 {
			t.Errorf("retries %s: %#v after %d calls; want the 429 as an *Error at once", name, err, calls.Load())
		}
	}
}

// TestSyncReadsPagesAndTombstones: Sync follows nextCursor to the end,
// yields perfumes and tombstones in order, and returns the last cursor;
// a failing fn returns the cursor before its page.
func TestSyncReadsPagesAndTombstones(t *testing.T) {
	pages := map[string]string{
		"":   `{"data":[{"id":"a-one","slug":"a-one","name":"One","brand":"A","accords":[]},{"id":"b-two","deleted":true}],"nextCursor":"c2","hasMore":true}`,
		"c2": `{"data":[{"id":"c-three","slug":"c-three","name":"Three","brand":"C","accords":[]}],"nextCursor":"c3","hasMore":false}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("limit") != "1000" {
			t.Errorf("limit %q", r.URL.Query().Get("limit"))
		}
		fmt.Fprint(w, pages[r.URL.Query().Get("since")])
	}))
	defer srv.Close()
	c, _ := New(srv.URL, WithKey("k"))
	var got []string
	next, err := c.Sync(context.Background(), "", func(ch Change) error {
		if ch.Deleted {
			got = append(got, "-"+ch.ID)
		} else {
			got = append(got, ch.Perfume.Name)
		}
		return nil
	})
	if err != nil || next != "c3" || fmt.Sprint(got) != "[One -b-two Three]" {
		t.Fatalf("Sync = %q, %v, %v", next, got, err)
	}
	stop := errors.New("disk full")
	next, err = c.Sync(context.Background(), "", func(ch Change) error {
		if ch.ID == "c-three" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || next != "c2" {
		t.Fatalf("Sync stopped in the second page = %q, %v; want c2 and the error", next, err)
	}
}

// TestFetchImageFallsBack: a transparent image not made yet (404 with
// X-Service-Nobg-Status: not-processed) gives the JPEG.
func TestFetchImageFallsBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/img/perfume-nobg/1.webp":
			w.Header().Set("X-Service-Nobg-Status", "not-processed")
			http.Error(w, `{"code":"not_found"}`, http.StatusNotFound)
		case "/img/perfume/1.jpg":
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write([]byte{0xff, 0xd8})
		}
	}))
	defer srv.Close()
	c, _ := New(srv.URL)
	img, err := c.FetchImage(context.Background(), srv.URL+"/img/perfume/1.jpg", srv.URL+"/img/perfume-nobg/1.webp")
	if err != nil || img.Transparent || img.ContentType != "image/jpeg" || len(img.Body) != 2 {
		t.Fatalf("FetchImage = %+v, %v; want the JPEG", img, err)
	}
	if u := ImageURL("j", "t", false); u != "j" {
		t.Errorf("ImageURL without a transparent image = %q", u)
	}
}
