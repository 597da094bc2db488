package meter_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// memStore keeps what it is given; it can fail its next writes.
type memStore struct {
	usage.Store // the reading methods are not used here
	mu          sync.Mutex
	batches     []usage.Batch
	signals     []usage.Signal
	fail        int
}

func (s *memStore) RecordUsage(_ context.Context, b usage.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return errors.New("disk full")
	}
	s.batches = append(s.batches, b)
	return nil
}

func (s *memStore) RecordSignals(_ context.Context, sig []usage.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return errors.New("disk full")
	}
	s.signals = append(s.signals, sig...)
	return nil
}

// merged sums every stored batch.
func (s *memStore) merged() (requests int64, lat map[string]*usage.Histogram, views map[int64]usage.PerfumeViews, empty map[string]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lat, views, empty = map[string]*usage.Histogram{}, map[int64]usage.PerfumeViews{}, map[string]int64{}
	for _, b := range s.batches {
		for _, c := range b.Hourly {
			requests += c.Count
		}
		for _, l := range b.Latency {
			if lat[l.Endpoint] == nil {
				lat[l.Endpoint] = new(usage.Histogram)
			}
			lat[l.Endpoint].Add(l.Bucket, l.Count)
		}
		for _, v := range b.Views {
			pv := views[v.PerfumeID]
			pv.PerfumeID = v.PerfumeID
			pv.Add(v.Kind, v.Count)
			views[v.PerfumeID] = pv
		}
		for _, q := range b.EmptySearches {
			empty[q.Query] += q.Count
		}
	}
	return
}

var day = time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)

func newMeter(t *testing.T, s usage.Store) *meter.Meter {
	t.Helper()
	m, err := meter.New(s, meter.Options{Now: func() time.Time { return day }, MaxPendingSignals: 3, MaxQueryLen: 8})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMeterCountsAndKeepsFailedBatches counts every kind, fails two
// flushes and checks the third writes all of it exactly once.
func TestMeterCountsAndKeepsFailedBatches(t *testing.T) {
	s := &memStore{}
	m := newMeter(t, s)
	for i := range 10 {
		m.Request("fds_AAAAAAAA", "perfumes.detail", 200, day, time.Duration(i+1)*time.Millisecond)
	}
	m.Request("fds_AAAAAAAA", "perfumes.detail", 429, day, 0) // refused: counted, not timed
	m.View(7, usage.ViewDetail)
	m.View(7, usage.ViewDupes)
	m.View(8, usage.ViewSimilar)
	m.EmptySearch("xyzzy")
	m.EmptySearch("xyzzy")
	m.EmptySearch("a very long query")
	m.EmptySearch("")
	for range 2 {
		s.fail = 1
		if err := m.Flush(context.Background()); err == nil {
			t.Fatal("flush with a failing store reported no error")
		}
	}
	m.Request("fds_AAAAAAAA", "perfumes.detail", 200, day, 300*time.Microsecond)
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	requests, lat, views, empty := s.merged()
	if requests != 12 {
		t.Errorf("requests %d, want 12", requests)
	}
	h := lat["perfumes.detail"]
	if h == nil || h.Total() != 11 {
		t.Fatalf("latency %v, want 11 timed requests", h)
	}
	if p50 := h.Quantile(0.5); p50 < 4*time.Millisecond || p50 > 8*time.Millisecond {
		t.Errorf("p50 %v, want within 4–8 ms", p50)
	}
	if v := views[7]; v.Detail != 1 || v.Dupes != 1 || v.Total() != 2 || views[8].Similar != 1 {
		t.Errorf("views %+v", views)
	}
	if empty["xyzzy"] != 2 || empty["a very l"] != 1 || len(empty) != 2 {
		t.Errorf("empty searches %v", empty)
	}
}

func TestMeterSignalsBounded(t *testing.T) {
	s := &memStore{}
	m := newMeter(t, s)
	for i := range 5 {
		m.Signal(usage.Signal{Kind: usage.SignalManyIPs, Count: int64(i)})
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(s.signals) != 3 || s.signals[0].Count != 2 {
		t.Fatalf("signals %+v, want the newest 3", s.signals)
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal("a second Close:", err)
	}
}

func TestStartAndClose(t *testing.T) {
	s := &memStore{}
	m := newMeter(t, s)
	m.Start()
	m.Click(3)
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(s.batches) != 1 || len(s.batches[0].Clicks) != 1 {
		t.Fatalf("batches %+v", s.batches)
	}
}

// TestMeterCleansInput: what the store would refuse is never counted, and
// a batch the store refuses anyway is dropped, not retried for ever.
func TestMeterCleansInput(t *testing.T) {
	s := &memStore{}
	m := newMeter(t, s) // MaxQueryLen 8
	m.View(1, usage.ViewKind("bogus"))
	m.EmptySearch("ab\x00c\xffd")
	m.EmptySearch("abcdefgé") // é would be cut in half at 8 bytes
	m.EmptySearch("\x00\xff") // nothing left
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, _, views, empty := s.merged()
	if len(views) != 0 || empty["abcd"] != 1 || empty["abcdefg"] != 1 || len(empty) != 2 {
		t.Fatalf("views %v, empty searches %v", views, empty)
	}
	refusing := &refusingStore{}
	m = newMeter(t, refusing)
	m.Click(1)
	if err := m.Flush(context.Background()); err != nil {
		t.Fatal("a refused batch is not the caller's error:", err)
	}
	m.Click(2)
	m.Flush(context.Background())
	if refusing.calls != 2 || refusing.lastClicks != 1 {
		t.Fatalf("the refused batch was kept: %d calls, last with %d clicks", refusing.calls, refusing.lastClicks)
	}
}

// refusingStore refuses every batch as invalid.
type refusingStore struct {
	usage.Store
	calls, lastClicks int
}

func (s *refusingStore) RecordUsage(_ context.Context, b usage.Batch) error {
	s.calls++
	s.lastClicks = len(b.Clicks)
	return fmt.Errorf("refused: %w", catalog.ErrInvalid)
}

// TestStatusClass: the class a request is counted under, from its status.
func TestStatusClass(t *testing.T) {
	for status, want := range map[int]string{
		100: "1xx", 200: "2xx", 204: "2xx", 304: "3xx", 400: "4xx", 404: "4xx",
		429: usage.ClassRateLimited, 499: "4xx", 500: "5xx", 503: "5xx", 599: "5xx",
		0: "other", 99: "other", 600: "other", -1: "other",
	} {
		if got := meter.StatusClass(status); got != want {
			t.Errorf("StatusClass(%d) = %q, want %q", status, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { meter.StatusClass(200) }); n != 0 {
		t.Errorf("StatusClass allocates %v times", n)
	}
}
