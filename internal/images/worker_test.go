package images_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

func TestJobFailureHasReason(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	// A kept source that is not an image: the job fails, with the reason.
	if err := e.store.PutImage(ctx, imgstore.Source, 9828, []byte("not a jpeg")); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Enqueue(ctx, []int64{9828, 424242}); err != nil {
		t.Fatal(err)
	}
	res := e.drain(t)
	if len(res) != 2 {
		t.Fatalf("%d jobs ran, want 2", len(res))
	}
	for _, c := range []struct {
		id     int64
		reason string
	}{{9828, "decode source photo"}, {424242, "not in the catalogue"}} {
		j, err := e.store.Job(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != imgstore.Failed || !strings.Contains(j.Reason, c.reason) {
			t.Errorf("job %d = %s %q, want failed with %q", c.id, j.State, j.Reason, c.reason)
		}
		if e.svc.TransparentAvailable(c.id) {
			t.Errorf("job %d failed but is available", c.id)
		}
	}
}

// TestCrashMidJobIsRetried: a worker claims a job and dies. Once the lease
// runs out the next worker takes the job over and finishes it.
func TestCrashMidJobIsRetried(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e.db.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })

	if err := e.svc.Enqueue(ctx, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ClaimJob(ctx, 10*time.Minute, 3); err != nil { // the worker that crashes
		t.Fatal(err)
	}
	if res := e.drain(t); len(res) != 0 {
		t.Fatalf("a held job was run again within its lease: %v", res)
	}
	mu.Lock()
	now = now.Add(11 * time.Minute)
	mu.Unlock()
	res := e.drain(t)
	if len(res) != 1 || res[0].ID != 1 || res[0].Err != nil {
		t.Fatalf("after the lease: ran %v, want job 1 done", res)
	}
	j, _ := e.store.Job(ctx, 1)
	if j.State != imgstore.Done || j.Attempts != 2 {
		t.Errorf("job = %s after %d attempts, want done after 2", j.State, j.Attempts)
	}
	if !e.svc.TransparentAvailable(1) {
		t.Error("not available after the retried job")
	}
}

func TestWorkerRunProcessesAndStops(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := e.svc.NewWorker(images.WorkerConfig{Poll: time.Hour, Refresh: time.Hour})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	// Enqueue wakes the idle worker at once (Poll is an hour).
	if err := e.svc.Enqueue(context.Background(), []int64{31861}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !e.svc.TransparentAvailable(31861) {
		if time.Now().After(deadline) {
			t.Fatal("worker did not finish the job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil on cancel", err)
	}
}

func TestWorkerQueueAll(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := e.svc.NewWorker(images.WorkerConfig{Workers: 2, Pause: -1, Poll: time.Hour, Refresh: time.Hour, QueueAll: true})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	deadline := time.Now().Add(60 * time.Second)
	for _, p := range testPerfumes {
		for !e.svc.TransparentAvailable(p.ID) {
			if time.Now().After(deadline) {
				t.Fatalf("perfume %d never processed", p.ID)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestRefreshSeesJobsDoneElsewhere(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	// Another process (the command line, a replica) finishes a job.
	if err := e.store.EnqueueJobs(ctx, []int64{9828}); err != nil {
		t.Fatal(err)
	}
	j, err := e.store.ClaimJob(ctx, time.Minute, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.CompleteJob(ctx, j.ID, j.Attempts, ""); err != nil {
		t.Fatal(err)
	}
	if e.svc.TransparentAvailable(9828) {
		t.Fatal("available before refresh")
	}
	if err := e.svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.svc.TransparentAvailable(9828) {
		t.Fatal("not available after refresh")
	}
}

// lateCatalogue is a catalogue that a test loads when it chooses, as serve's
// catalogue is loaded some time after the worker starts.
type lateCatalogue struct {
	images.Catalogue // every perfume, shown once loaded
	loaded           atomic.Bool
}

func (c *lateCatalogue) Loaded() bool { return c.loaded.Load() }

func (c *lateCatalogue) PerfumeByID(id int64) (catalog.Perfume, bool) {
	if !c.loaded.Load() {
		return catalog.Perfume{}, false
	}
	return c.Catalogue.PerfumeByID(id)
}

func (c *lateCatalogue) IDs() []int64 {
	if !c.loaded.Load() {
		return nil
	}
	return c.Catalogue.IDs()
}

// TestWorkerWaitsForTheCatalogue: a worker started before the catalogue has
// loaded (a server restarting with jobs left pending) claims nothing until
// it has, then runs the jobs, instead of failing them for good.
func TestWorkerWaitsForTheCatalogue(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cat := &lateCatalogue{Catalogue: images.NewCatalogue(testPerfumes)}
	svc, err := images.New(ctx, images.Config{BaseURL: "https://img.example.com/", AccordColor: accordColor}, e.store, cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.EnqueueJobs(ctx, []int64{31861}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- svc.NewWorker(images.WorkerConfig{Pause: -1, Poll: time.Hour, Refresh: time.Hour}).Run(ctx)
	}()
	time.Sleep(300 * time.Millisecond) // several of the worker's looks at the catalogue
	if j, err := e.store.Job(ctx, 31861); err != nil || j.State != imgstore.Pending {
		t.Fatalf("before the catalogue loaded: job = %+v, %v; want it pending", j, err)
	}
	cat.loaded.Store(true)
	deadline := time.Now().Add(30 * time.Second)
	for !svc.TransparentAvailable(31861) {
		if time.Now().After(deadline) {
			j, err := e.store.Job(ctx, 31861)
			t.Fatalf("job not done after the catalogue loaded: %+v, %v", j, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestWorkerRetriesJobsFailedForAMissingPerfume: jobs that failed because
// their perfume was not in the worker's catalogue (as before a load) are
// run again once the perfume is there; jobs that failed otherwise wait for
// the operator.
func TestWorkerRetriesJobsFailedForAMissingPerfume(t *testing.T) {
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := e.store.PutImage(ctx, imgstore.Source, 9828, []byte("not a jpeg")); err != nil {
		t.Fatal(err)
	}
	if err := e.store.EnqueueJobs(ctx, []int64{31861, 9828}); err != nil {
		t.Fatal(err)
	}
	reasons := map[int64]string{31861: "perfume 31861 " + imgstore.NotInCatalogue, 9828: "decode source photo: bad"}
	for range reasons {
		j, err := e.store.ClaimJob(ctx, time.Minute, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.CompleteJob(ctx, j.ID, j.Attempts, reasons[j.ID]); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		done <- e.svc.NewWorker(images.WorkerConfig{Pause: -1, Poll: time.Hour, Refresh: time.Hour, QueueAll: true}).Run(ctx)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !e.svc.TransparentAvailable(31861) {
		if time.Now().After(deadline) {
			t.Fatal("the job failed for a missing perfume was not retried")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if j, err := e.store.Job(context.Background(), 9828); err != nil || j.State != imgstore.Failed || j.Attempts != 1 {
		t.Errorf("job 9828 = %+v, %v; want it still failed after 1 attempt", j, err)
	}
}
