// Package imgstore is the storage contract of the image host: where image
// bytes live (Blobs) and the queue of background-removal jobs (Jobs). Files
// on disk (internal/imgfiles) hold the blobs by default, next to the SQLite
// database that holds the jobs; the PostgreSQL backend holds both so
// replicas share them. Every backend passes the suites in internal/storetest.
//
// It holds types and interfaces only and imports nothing of the project, so
// that backends can implement it without pulling in the image code.
package imgstore

import (
	"context"
	"errors"
	"time"
)

// Kind names one family of stored images of a perfume.
type Kind string

// The kinds of stored image. Each perfume has at most one of each.
const (
	// Source is an imported photo normalised to the processing size and kept
	// at high quality: the input of background removal.
	Source Kind = "source"
	// Photo is the served JPEG of an imported photo (about 20–30 KB).
	Photo Kind = "photo"
	// Nobg is the served transparent-background WebP.
	Nobg Kind = "nobg"
	// Render is the served JPEG drawn for a perfume without a photo, kept
	// once drawn so that each perfume is drawn once per drawing version
	// (its Version names the drawing, not the bytes).
	Render Kind = "render"
)

// Valid reports whether k is one of the known kinds; backends refuse others
// so that a kind can safely become part of a file name or a column value.
func (k Kind) Valid() bool { return k == Source || k == Photo || k == Nobg || k == Render }

// Blobs stores image bytes by kind and numeric perfume id.
type Blobs interface {
	// PutImage stores data as the image of that kind and id, replacing any
	// earlier one. A reader sees either the old bytes or the new, never a mix.
	PutImage(ctx context.Context, kind Kind, id int64, data []byte) error
	// Image returns the stored bytes; an error matching catalog.ErrNotFound
	// when there are none.
	Image(ctx context.Context, kind Kind, id int64) ([]byte, error)
}

// State is where a background-removal job stands.
type State string

// The job states. A job is created pending, claimed into processing, and
// ends done or failed; enqueueing it again sends it back to pending.
const (
	Pending    State = "pending"
	Processing State = "processing"
	Done       State = "done"
	Failed     State = "failed"
)

// Job is the background-removal job of one perfume's image.
type Job struct {
	// ID is the perfume's numeric id: there is one job per perfume.
	ID    int64
	State State
	// Reason says why a failed job failed; empty otherwise.
	Reason string
	// Attempts counts the claims since the job was last enqueued. A claim
	// is identified by it: CompleteJob names the attempt it finishes.
	Attempts  int
	UpdatedAt time.Time
}

// ErrStale reports that a job completion came too late: the job was claimed
// again after its lease ran out, or enqueued anew, so this attempt no longer
// holds it. The worker drops its result; the current holder will finish.
var ErrStale = errors.New("image job no longer held by this attempt")

// NotInCatalogue ends the reason of a job that failed because its perfume
// was not in the catalogue the worker served: a perfume deleted since, or
// one this replica has not loaded yet. Workers retry such jobs once the
// perfume is in their catalogue (RetryFailedJobs).
const NotInCatalogue = "is not in the catalogue"

// Jobs is the queue of background-removal jobs. A worker that dies
// mid-job loses nothing: its claim lapses after the lease and the job is
// claimed again, up to a maximum number of attempts.
type Jobs interface {
	// EnqueueJobs makes the job of each id pending with no attempts,
	// whatever state it was in, creating it when missing.
	EnqueueJobs(ctx context.Context, ids []int64) error
	// QueueMissingJobs creates a pending job for each id that has none and
	// leaves existing jobs as they are (pending, held, done or failed), so
	// that replicas queueing the whole catalogue at start-up never reset
	// each other's work. It returns how many jobs it created.
	QueueMissingJobs(ctx context.Context, ids []int64) (int, error)
	// RetryFailedJobs makes pending again, with no attempts, the failed jobs
	// among ids whose reason ends with reasonSuffix (a failure that another
	// try can mend, such as NotInCatalogue), and leaves every other job as
	// it is. It returns how many jobs it made pending.
	RetryFailedJobs(ctx context.Context, ids []int64, reasonSuffix string) (int, error)
	// ClaimJob takes the oldest pending job, or a processing job whose lease
	// ran out, marks it processing with a lease of the given length and
	// returns it with Attempts counting this claim. Lapsed jobs that already
	// used maxAttempts claims are marked failed instead. When nothing is
	// claimable it returns an error matching catalog.ErrNotFound.
	ClaimJob(ctx context.Context, lease time.Duration, maxAttempts int) (Job, error)
	// CompleteJob ends the claim numbered attempt of job id: done when
	// failure is empty, otherwise failed with failure as the reason. It
	// returns ErrStale when that claim no longer holds the job.
	CompleteJob(ctx context.Context, id int64, attempt int, failure string) error
	// Job returns the job of id; an error matching catalog.ErrNotFound when
	// the perfume has none.
	Job(ctx context.Context, id int64) (Job, error)
	// DoneJobIDs returns the ids of every done job in ascending order: the
	// perfumes whose transparent image is available.
	DoneJobIDs(ctx context.Context) ([]int64, error)
	// JobCounts returns the number of jobs in each state (states with no
	// job may be missing from the map).
	JobCounts(ctx context.Context) (map[State]int, error)
}

// Versions records the content version of the served images, so that the
// URLs the API gives out can name it (".../31861.jpg?v=1a2b3c4d5e6f")
// without reading an image per request: a URL whose content changes then
// changes with it, and a CDN may keep each URL for ever. The image host
// loads every version into memory and reloads them as it reloads job
// states; it writes one after each PutImage of a served kind.
type Versions interface {
	// SetImageVersion records version (a short hash, at most 64
	// characters) as that of the image of kind and id, replacing an
	// earlier one.
	SetImageVersion(ctx context.Context, kind Kind, id int64, version string) error
	// ImageVersions returns the recorded version of every image of kind,
	// by perfume id (an empty map when there are none).
	ImageVersions(ctx context.Context, kind Kind) (map[int64]string, error)
}

// MaxVersionLen bounds a recorded version.
const MaxVersionLen = 64

// Store is everything the image host needs from storage.
type Store interface {
	Blobs
	Jobs
	Versions
}

// Index is the part of the image storage a database keeps beside blobs
// kept elsewhere: the jobs and the versions.
type Index interface {
	Jobs
	Versions
}

// With joins a blob store and a database's jobs and versions into one
// Store, as the default set-up does with the filesystem and SQLite.
func With(blobs Blobs, index Index) Store {
	return joined{blobs, index}
}

type joined struct {
	Blobs
	Index
}
