package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/cpubudget"
	"github.com/fragrance-data/fragrance/internal/images/cutout"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// WorkerConfig tunes a Worker. Zero fields take the defaults.
type WorkerConfig struct {
	// Workers is how many jobs run at once. Default 1: processing is
	// background work and must leave the cores to the API. Negative
	// disables processing; Run then only refreshes availability.
	Workers int
	// Lease is how long a claimed job is held before another worker may
	// take it over (the worker is presumed dead). Default 10 minutes.
	Lease time.Duration
	// MaxAttempts is how many claims a job gets before it is failed for
	// good. Default 3.
	MaxAttempts int
	// Poll is how long an idle worker waits before looking for jobs again
	// (jobs enqueued by this process wake it at once). Default 30 s.
	Poll time.Duration
	// Refresh is how often Run reloads availability from the store, to
	// see jobs finished elsewhere. Default 1 minute.
	Refresh time.Duration
	// Pause is a rest between two jobs of one worker. Default 100 ms;
	// negative for none.
	Pause time.Duration
	// CPUBudget is the share of one core the workers of this pool may use
	// together, averaged over their jobs (0.25: a quarter of a core): after
	// each job they rest in proportion to the time it took (see
	// cpubudget.Budget). It is what keeps processing at low priority beside the
	// API. 0 or less: no limit (the command line's default).
	CPUBudget float64
	// QueueAll makes Run queue a job for every perfume of the catalogue
	// whose transparent image is not done: at start (which also gives
	// failed jobs another try after a restart) and, at every refresh, for
	// perfumes new to the catalogue. Every perfume thus gets its
	// transparent image in the background.
	QueueAll bool
}

func (c WorkerConfig) withDefaults() WorkerConfig {
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.Lease <= 0 {
		c.Lease = 10 * time.Minute
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.Poll <= 0 {
		c.Poll = 30 * time.Second
	}
	if c.Refresh <= 0 {
		c.Refresh = time.Minute
	}
	if c.Pause == 0 {
		c.Pause = 100 * time.Millisecond
	}
	return c
}

// Worker runs background-removal jobs from the store.
type Worker struct {
	s      *Service
	cfg    WorkerConfig
	budget *cpubudget.Budget // nil: no limit
	// queued holds the ids known to have a job (QueueAll); only Run's
	// goroutine touches it.
	queued map[int64]struct{}
}

// NewWorker returns a worker pool of the service.
func (s *Service) NewWorker(cfg WorkerConfig) *Worker {
	w := &Worker{s: s, cfg: cfg.withDefaults()}
	if w.cfg.CPUBudget > 0 {
		w.budget = cpubudget.New(w.cfg.CPUBudget, time.Now, cpubudget.Sleep)
	}
	return w
}

// Run processes jobs as they come and refreshes availability until ctx is
// cancelled; a job under way is finished first. It returns nil on
// cancellation.
func (w *Worker) Run(ctx context.Context) error {
	if !w.waitLoaded(ctx) {
		return nil
	}
	var wg sync.WaitGroup
	for range max(w.cfg.Workers, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx, false, nil)
		}()
	}
	w.queueAll(ctx)
	tick := time.NewTicker(w.cfg.Refresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case <-tick.C:
			if err := w.s.Refresh(ctx); err != nil && ctx.Err() == nil {
				w.s.log.Error("image availability refresh", "err", err)
			}
			w.queueAll(ctx)
		}
	}
}

// loadedPoll is how often a worker started before the catalogue looks
// whether it has loaded.
const loadedPoll = 100 * time.Millisecond

// waitLoaded waits until the catalogue is loaded, so that no job is claimed
// (and failed, its perfume missing) while a server starts. It reports false
// when ctx ends first.
func (w *Worker) waitLoaded(ctx context.Context) bool {
	for !w.s.cat.Loaded() {
		t := time.NewTimer(loadedPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	return ctx.Err() == nil
}

// queueAll queues the perfumes not yet seen by this worker whose
// transparent image is not done (QueueAll).
func (w *Worker) queueAll(ctx context.Context) {
	if !w.cfg.QueueAll {
		return
	}
	if w.queued == nil {
		w.queued = make(map[int64]struct{})
	}
	ids := w.s.cat.IDs()
	var fresh []int64
	for _, id := range ids {
		if _, ok := w.queued[id]; !ok && !w.s.avail.has(id) {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) > 0 {
		// Only jobs that do not exist yet: another replica may hold some,
		// and a failed one waits for the operator (fragrance images queue)
		// unless it failed only because its perfume was missing from the
		// catalogue of the worker that ran it: it is here now.
		n, err := w.s.store.QueueMissingJobs(ctx, fresh)
		if err == nil {
			var retried int
			retried, err = w.s.store.RetryFailedJobs(ctx, fresh, imgstore.NotInCatalogue)
			n += retried
		}
		if err != nil {
			if ctx.Err() == nil {
				w.s.log.Error("queue image jobs", "err", err)
			}
			return
		}
		if n > 0 {
			w.s.log.Info("queued transparent images", "perfumes", n)
			w.s.wakeWorkers()
		}
	}
	for _, id := range ids {
		w.queued[id] = struct{}{}
	}
}

// JobResult is the outcome of one job, for progress reports.
type JobResult struct {
	ID int64
	// Err is why the job failed; nil when it is done.
	Err error
}

// Drain processes jobs until none is left to claim, then returns. The
// command line uses it; report, when not nil, is called after every job
// (from several goroutines at once when Workers > 1).
func (w *Worker) Drain(ctx context.Context, report func(JobResult)) error {
	if !w.waitLoaded(ctx) {
		return ctx.Err()
	}
	var wg sync.WaitGroup
	errs := make(chan error, max(w.cfg.Workers, 1))
	for range max(w.cfg.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.loop(ctx, true, report); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return errors.Join(<-errs, ctx.Err())
}

// loop claims and runs jobs. With drain it returns once the queue is
// empty; otherwise it waits for more until ctx is cancelled. Only storage
// errors while draining are returned; a running loop logs them and retries.
func (w *Worker) loop(ctx context.Context, drain bool, report func(JobResult)) error {
	for ctx.Err() == nil {
		w.budget.Wait(ctx)
		if ctx.Err() != nil {
			break
		}
		job, err := w.s.store.ClaimJob(ctx, w.cfg.Lease, w.cfg.MaxAttempts)
		if err != nil {
			if drain {
				if errors.Is(err, catalog.ErrNotFound) {
					return nil
				}
				return err
			}
			if !errors.Is(err, catalog.ErrNotFound) && ctx.Err() == nil {
				w.s.log.Error("claim image job", "err", err)
			}
			w.idle(ctx)
			continue
		}
		w.s.wakeWorkers() // there may be more: let another idle worker look
		// The job finishes even when ctx is cancelled meanwhile: it takes
		// about a second, and a finished job beats one left to its lease.
		start := time.Now()
		res := w.s.runJob(context.WithoutCancel(ctx), job)
		w.budget.Spend(time.Since(start))
		if report != nil {
			report(res)
		}
		if w.cfg.Pause > 0 {
			cpubudget.Sleep(ctx, w.cfg.Pause)
		}
	}
	return nil
}

// idle waits for the poll interval, a wake-up or cancellation.
func (w *Worker) idle(ctx context.Context) {
	t := time.NewTimer(w.cfg.Poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-w.s.wake:
	}
}

// runJob makes the transparent image of one claimed job and records the
// outcome. A panic in the image code fails the job instead of the server.
func (s *Service) runJob(ctx context.Context, job imgstore.Job) (res JobResult) {
	res.ID = job.ID
	func() {
		defer func() {
			if r := recover(); r != nil {
				res.Err = fmt.Errorf("internal error: %v", r)
			}
		}()
		res.Err = s.makeTransparent(ctx, job.ID)
	}()
	failure := ""
	if res.Err != nil {
		failure = res.Err.Error()
		s.log.Warn("image job failed", "id", job.ID, "attempt", job.Attempts, "reason", failure)
	}
	err := s.store.CompleteJob(ctx, job.ID, job.Attempts, failure)
	switch {
	case errors.Is(err, imgstore.ErrStale):
		// Re-enqueued or taken over meanwhile; the current holder decides.
	case err != nil:
		s.log.Error("complete image job", "id", job.ID, "err", err)
		if res.Err == nil {
			res.Err = err
		}
	case res.Err == nil:
		s.avail.add(job.ID)
	default:
		s.avail.remove(job.ID)
	}
	return res
}

// makeTransparent makes and stores the transparent image of one perfume:
// background removal on its imported photo, or, without one, the generated
// bottle drawn straight onto transparency.
func (s *Service) makeTransparent(ctx context.Context, id int64) error {
	p, ok := s.cat.PerfumeByID(id)
	if !ok {
		return fmt.Errorf("perfume %d %s", id, imgstore.NotInCatalogue)
	}
	var data []byte
	src, err := s.store.Image(ctx, imgstore.Source, id)
	switch {
	case err == nil:
		data, err = transparentFromPhoto(src)
	case errors.Is(err, catalog.ErrNotFound):
		data, err = encode.Nobg(encode.ToNRGBA(s.painter.Draw(p, encode.NobgWidth, encode.NobgHeight, false)))
	}
	if err != nil {
		return err
	}
	if err := s.putServed(ctx, imgstore.Nobg, id, data, versionOf(data)); err != nil {
		return fmt.Errorf("store transparent image: %w", err)
	}
	return nil
}

// transparentFromPhoto removes the background of a kept source photo.
func transparentFromPhoto(src []byte) ([]byte, error) {
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("decode source photo: %w", err)
	}
	cut, err := cutout.RemoveBackground(img)
	if err != nil {
		return nil, err
	}
	return encode.Nobg(cut)
}
