// Package storetest holds the contract suites every storage backend runs, so
// that SQLite and PostgreSQL behave alike.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

// RunImageBlobs runs the contract suite of imgstore.Blobs. newBlobs returns
// an empty store for each subtest.
func RunImageBlobs(t *testing.T, newBlobs func(t *testing.T) imgstore.Blobs) {
	t.Run("missing is not found", func(t *testing.T) {
		_, err := newBlobs(t).Image(context.Background(), imgstore.Photo, 7)
		if !errors.Is(err, catalog.ErrNotFound) {
			t.Fatalf("Image of nothing: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("put, get, replace, kinds apart", func(t *testing.T) {
		ctx := context.Background()
		s := newBlobs(t)
		mustPutImage(t, s, imgstore.Photo, 7, []byte("first"))
		mustPutImage(t, s, imgstore.Photo, 7, []byte("second"))
		mustPutImage(t, s, imgstore.Nobg, 7, []byte("webp"))
		mustPutImage(t, s, imgstore.Source, 1007, bytes.Repeat([]byte{0, 255}, 40000))
		for _, c := range []struct {
			kind imgstore.Kind
			id   int64
			want []byte
		}{
			{imgstore.Photo, 7, []byte("second")},
			{imgstore.Nobg, 7, []byte("webp")},
			{imgstore.Source, 1007, bytes.Repeat([]byte{0, 255}, 40000)},
		} {
			got, err := s.Image(ctx, c.kind, c.id)
			if err != nil || !bytes.Equal(got, c.want) {
				t.Errorf("Image(%s, %d) = %d bytes, %v; want %d bytes", c.kind, c.id, len(got), err, len(c.want))
			}
		}
		if _, err := s.Image(ctx, imgstore.Source, 7); !errors.Is(err, catalog.ErrNotFound) {
			t.Errorf("Image(source, 7): err = %v, want ErrNotFound", err)
		}
	})
	t.Run("unknown kind refused", func(t *testing.T) {
		if err := newBlobs(t).PutImage(context.Background(), "../x", 1, []byte("x")); err == nil {
			t.Fatal("PutImage with kind ../x succeeded")
		}
	})
}

func mustPutImage(t *testing.T, s imgstore.Blobs, kind imgstore.Kind, id int64, data []byte) {
	t.Helper()
	if err := s.PutImage(context.Background(), kind, id, data); err != nil {
		t.Fatalf("PutImage(%s, %d): %v", kind, id, err)
	}
}

// RunImageStore runs the contract suites of imgstore.Blobs and imgstore.Jobs
// against a backend. newStore returns an empty store whose clock is now.
func RunImageStore(t *testing.T, newStore func(t *testing.T, now func() time.Time) imgstore.Store) {
	t.Run("blobs", func(t *testing.T) {
		RunImageBlobs(t, func(t *testing.T) imgstore.Blobs { return newStore(t, time.Now) })
	})
	t.Run("versions", func(t *testing.T) {
		testImageVersions(t, newStore(t, time.Now))
	})
	t.Run("render blobs", func(t *testing.T) {
		s := newStore(t, time.Now)
		mustPutImage(t, s, imgstore.Render, 9, []byte("drawn"))
		if got, err := s.Image(context.Background(), imgstore.Render, 9); err != nil || string(got) != "drawn" {
			t.Fatalf("Image(render, 9) = %q, %v; want drawn", got, err)
		}
	})
	t.Run("jobs", func(t *testing.T) {
		for _, c := range jobCases {
			t.Run(c.name, func(t *testing.T) {
				clk := testclock.New(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
				c.run(t, newStore(t, clk.Now), clk)
			})
		}
	})
}

const (
	jobLease       = time.Minute
	jobMaxAttempts = 2
)

var jobCases = []struct {
	name string
	run  func(t *testing.T, s imgstore.Store, clk *testclock.Clock)
}{
	{"empty queue", testJobsEmpty},
	{"claim order and completion", testJobsLifecycle},
	{"lapsed lease is retried then given up", testJobsLapsed},
	{"re-enqueue makes an old claim stale", testJobsReenqueue},
	{"queueing the missing leaves existing jobs alone", testJobsQueueMissing},
	{"failed jobs of one kind are retried, others left", testJobsRetryFailed},
	{"concurrent claims never share a job", testJobsConcurrent},
}

func testJobsEmpty(t *testing.T, s imgstore.Store, _ *testclock.Clock) {
	ctx := context.Background()
	if _, err := s.ClaimJob(ctx, jobLease, jobMaxAttempts); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("ClaimJob on empty queue: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Job(ctx, 1); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("Job(1): err = %v, want ErrNotFound", err)
	}
	ids, err := s.DoneJobIDs(ctx)
	if err != nil || len(ids) != 0 {
		t.Fatalf("DoneJobIDs = %v, %v; want none", ids, err)
	}
}

func testJobsLifecycle(t *testing.T, s imgstore.Store, clk *testclock.Clock) {
	ctx := context.Background()
	mustEnqueue(t, s, 30, 10)
	clk.Add(time.Second)
	mustEnqueue(t, s, 20)
	wantJob(t, s, 10, imgstore.Pending, 0)

	// Same enqueue instant: by id; later enqueues after.
	for _, want := range []int64{10, 30, 20} {
		j := mustClaim(t, s)
		if j.ID != want || j.State != imgstore.Processing || j.Attempts != 1 {
			t.Fatalf("claim = %+v, want job %d processing, attempt 1", j, want)
		}
	}
	if _, err := s.ClaimJob(ctx, jobLease, jobMaxAttempts); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("ClaimJob with all held: err = %v, want ErrNotFound", err)
	}
	mustComplete(t, s, 30, 1, "")
	mustComplete(t, s, 10, 1, "")
	mustComplete(t, s, 20, 1, "cannot decode source")
	wantJob(t, s, 20, imgstore.Failed, 1)
	if j, _ := s.Job(ctx, 20); j.Reason != "cannot decode source" {
		t.Errorf("failed job reason = %q", j.Reason)
	}
	if err := s.CompleteJob(ctx, 10, 1, ""); !errors.Is(err, imgstore.ErrStale) {
		t.Errorf("completing a done job: err = %v, want ErrStale", err)
	}
	ids, err := s.DoneJobIDs(ctx)
	if err != nil || fmt.Sprint(ids) != "[10 30]" {
		t.Errorf("DoneJobIDs = %v, %v; want [10 30]", ids, err)
	}
	counts, err := s.JobCounts(ctx)
	if err != nil || counts[imgstore.Done] != 2 || counts[imgstore.Failed] != 1 || counts[imgstore.Pending] != 0 {
		t.Errorf("JobCounts = %v, %v; want 2 done, 1 failed", counts, err)
	}
}

func testJobsLapsed(t *testing.T, s imgstore.Store, clk *testclock.Clock) {
	ctx := context.Background()
	mustEnqueue(t, s, 5)
	mustClaim(t, s)
	clk.Add(jobLease / 2)
	if _, err := s.ClaimJob(ctx, jobLease, jobMaxAttempts); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("claim within the lease: err = %v, want ErrNotFound", err)
	}
	clk.Add(jobLease) // the first worker "crashed"
	j := mustClaim(t, s)
	if j.ID != 5 || j.Attempts != 2 {
		t.Fatalf("reclaim = %+v, want job 5 attempt 2", j)
	}
	if err := s.CompleteJob(ctx, 5, 1, ""); !errors.Is(err, imgstore.ErrStale) {
		t.Errorf("late completion of attempt 1: err = %v, want ErrStale", err)
	}
	clk.Add(2 * jobLease) // crashed again: out of attempts
	if _, err := s.ClaimJob(ctx, jobLease, jobMaxAttempts); !errors.Is(err, catalog.ErrNotFound) {
		t.Fatalf("claim after the last attempt lapsed: err = %v, want ErrNotFound", err)
	}
	wantJob(t, s, 5, imgstore.Failed, 2)
	if j, _ := s.Job(ctx, 5); j.Reason == "" {
		t.Error("a job given up has no reason")
	}
}

func testJobsReenqueue(t *testing.T, s imgstore.Store, _ *testclock.Clock) {
	ctx := context.Background()
	mustEnqueue(t, s, 8)
	mustClaim(t, s)
	mustEnqueue(t, s, 8) // a new photo arrived while processing
	if err := s.CompleteJob(ctx, 8, 1, ""); !errors.Is(err, imgstore.ErrStale) {
		t.Fatalf("completion after re-enqueue: err = %v, want ErrStale", err)
	}
	wantJob(t, s, 8, imgstore.Pending, 0)
	j := mustClaim(t, s)
	mustComplete(t, s, 8, j.Attempts, "")
	mustEnqueue(t, s, 8)
	wantJob(t, s, 8, imgstore.Pending, 0)
}

func testJobsQueueMissing(t *testing.T, s imgstore.Store, _ *testclock.Clock) {
	ctx := context.Background()
	mustEnqueue(t, s, 1, 2, 3)
	held := mustClaim(t, s) // 1, held by another replica's worker
	j := mustClaim(t, s)    // 2, done
	mustComplete(t, s, j.ID, j.Attempts, "")
	n, err := s.QueueMissingJobs(ctx, []int64{1, 2, 3, 4, 5, 4})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("QueueMissingJobs created %d jobs, want 2 (4 and 5)", n)
	}
	wantJob(t, s, 2, imgstore.Done, 1)
	wantJob(t, s, 3, imgstore.Pending, 0)
	wantJob(t, s, 4, imgstore.Pending, 0)
	wantJob(t, s, 5, imgstore.Pending, 0)
	// The held claim is still the job's: its completion is not stale.
	mustComplete(t, s, held.ID, held.Attempts, "")
	wantJob(t, s, 1, imgstore.Done, 1)
	if n, err := s.QueueMissingJobs(ctx, nil); err != nil || n != 0 {
		t.Errorf("QueueMissingJobs(nil) = %d, %v", n, err)
	}
}

func testJobsRetryFailed(t *testing.T, s imgstore.Store, _ *testclock.Clock) {
	ctx := context.Background()
	mustEnqueue(t, s, 1, 2, 3, 4)
	for _, reason := range []string{"perfume 1 " + imgstore.NotInCatalogue, "decode source photo: bad", "", "perfume 4 " + imgstore.NotInCatalogue} {
		j := mustClaim(t, s)
		mustComplete(t, s, j.ID, j.Attempts, reason)
	}
	n, err := s.RetryFailedJobs(ctx, []int64{1, 2, 3, 5}, imgstore.NotInCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("RetryFailedJobs made %d jobs pending, want 1 (job 1)", n)
	}
	wantJob(t, s, 1, imgstore.Pending, 0)
	wantJob(t, s, 2, imgstore.Failed, 1) // another failure: left for the operator
	wantJob(t, s, 3, imgstore.Done, 1)
	wantJob(t, s, 4, imgstore.Failed, 1) // not asked for
	if _, err := s.Job(ctx, 5); !errors.Is(err, catalog.ErrNotFound) {
		t.Errorf("job 5 = %v, want none made", err)
	}
	if n, err := s.RetryFailedJobs(ctx, nil, imgstore.NotInCatalogue); err != nil || n != 0 {
		t.Errorf("RetryFailedJobs(nil) = %d, %v", n, err)
	}
}

func testJobsConcurrent(t *testing.T, s imgstore.Store, _ *testclock.Clock) {
	ctx := context.Background()
	const n = 24
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	mustEnqueue(t, s, ids...)
	var mu sync.Mutex
	seen := make(map[int64]int)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, err := s.ClaimJob(ctx, jobLease, jobMaxAttempts)
				if errors.Is(err, catalog.ErrNotFound) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[j.ID]++
				mu.Unlock()
				if err := s.CompleteJob(ctx, j.ID, j.Attempts, ""); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("job %d claimed %d times, want 1", id, seen[id])
		}
	}
}

func mustEnqueue(t *testing.T, s imgstore.Jobs, ids ...int64) {
	t.Helper()
	if err := s.EnqueueJobs(context.Background(), ids); err != nil {
		t.Fatalf("EnqueueJobs(%v): %v", ids, err)
	}
}

func mustClaim(t *testing.T, s imgstore.Jobs) imgstore.Job {
	t.Helper()
	j, err := s.ClaimJob(context.Background(), jobLease, jobMaxAttempts)
	if err != nil {
		t.Fatalf("ClaimJob: %v", err)
	}
	return j
}

func mustComplete(t *testing.T, s imgstore.Jobs, id int64, attempt int, failure string) {
	t.Helper()
	if err := s.CompleteJob(context.Background(), id, attempt, failure); err != nil {
		t.Fatalf("CompleteJob(%d, %d): %v", id, attempt, err)
	}
}

func wantJob(t *testing.T, s imgstore.Jobs, id int64, state imgstore.State, attempts int) {
	t.Helper()
	j, err := s.Job(context.Background(), id)
	if err != nil {
		t.Fatalf("Job(%d): %v", id, err)
	}
	if j.State != state || j.Attempts != attempts {
		t.Fatalf("Job(%d) = %s with %d attempts, want %s with %d", id, j.State, j.Attempts, state, attempts)
	}
}

// testImageVersions: versions are recorded per kind and id, replaced, and
// bad input is refused.
func testImageVersions(t *testing.T, s imgstore.Store) {
	ctx := context.Background()
	if got, err := s.ImageVersions(ctx, imgstore.Photo); err != nil || len(got) != 0 {
		t.Fatalf("ImageVersions of an empty store = %v, %v; want none", got, err)
	}
	for _, v := range []struct {
		kind imgstore.Kind
		id   int64
		ver  string
	}{
		{imgstore.Photo, 7, "aaaaaaaaaaaa"},
		{imgstore.Photo, 7, "bbbbbbbbbbbb"},
		{imgstore.Photo, 8, "cccccccccccc"},
		{imgstore.Nobg, 7, "dddddddddddd"},
		{imgstore.Render, 9, "r1"},
	} {
		if err := s.SetImageVersion(ctx, v.kind, v.id, v.ver); err != nil {
			t.Fatalf("SetImageVersion(%s, %d): %v", v.kind, v.id, err)
		}
	}
	want := map[imgstore.Kind]map[int64]string{
		imgstore.Photo:  {7: "bbbbbbbbbbbb", 8: "cccccccccccc"},
		imgstore.Nobg:   {7: "dddddddddddd"},
		imgstore.Render: {9: "r1"},
		imgstore.Source: {},
	}
	for kind, w := range want {
		got, err := s.ImageVersions(ctx, kind)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("ImageVersions(%s) = %v, %v; want %v", kind, got, err, w)
		}
	}
	for _, bad := range []struct {
		kind imgstore.Kind
		ver  string
	}{{"../x", "v"}, {imgstore.Photo, ""}, {imgstore.Photo, string(bytes.Repeat([]byte("a"), imgstore.MaxVersionLen+1))}} {
		if err := s.SetImageVersion(ctx, bad.kind, 1, bad.ver); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("SetImageVersion(%q, %d-byte version): err = %v, want ErrInvalid", bad.kind, len(bad.ver), err)
		}
	}
}
