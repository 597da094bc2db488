package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/fragrance-data/fragrance/internal/bundled"
	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// runImages dispatches "fragrance images <command>".
func runImages(ctx context.Context, args []string, cio cmdIO) error {
	return dispatch(ctx, "images", []subcommand{
		{"import", "import bottle photos from a directory (files named by numeric id or slug)", runImagesImport},
		{"process", "make transparent-background images (queued jobs, --id N, or --all)", runImagesProcess},
		{"status", "count background-removal jobs by state", runImagesStatus},
	}, args, cio)
}

// imageFlags are the flags every images command shares.
type imageFlags struct {
	*flags
	db, imageDir *string
}

func newImageFlags(name, usage string, cio cmdIO) *imageFlags {
	f := newFlags("images "+name, "images "+usage, cio)
	return &imageFlags{
		flags:    f,
		db:       f.DB(),
		imageDir: f.String("image-dir", "", "directory of stored images (default: beside the database, e.g. fragrance-images)"),
	}
}

// open opens the existing store, fills one without a catalogue (made by
// migrate) with the bundled one as serve would, and returns the image
// service over its perfumes.
func (f *imageFlags) open(ctx context.Context) (*images.Service, func(), error) {
	db, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*images.Service, func(), error) {
		db.Close()
		return nil, nil, err
	}
	ref, err := bundled.LoadReference()
	if err != nil {
		return fail(err)
	}
	if _, err := seedIfEmpty(ctx, db, ref, ""); err != nil {
		return fail(fmt.Errorf("fill new database: %w", err))
	}
	ps, err := db.Perfumes(ctx)
	if err != nil {
		return fail(err)
	}
	store, err := openImageStore(db, *f.db, *f.imageDir)
	if err != nil {
		return fail(err)
	}
	svc, err := images.New(ctx, images.Config{AccordColor: ref.Color}, store, images.NewCatalogue(ps))
	if err != nil {
		return fail(err)
	}
	return svc, func() { db.Close() }, nil
}

func runImagesImport(ctx context.Context, args []string, cio cmdIO) error {
	f := newImageFlags("import", "import [--db PATH] [--image-dir DIR] PHOTODIR\n\n"+
		"Imports the JPEG, PNG and WebP files under PHOTODIR, each named by a perfume's numeric\n"+
		"id or slug (31861.jpg, dior-sauvage.png). Photos of any size are fitted to 3:4, stored\n"+
		"as the perfume's image (about 20-30 KB) and queued for background removal, which\n"+
		"'serve' does in the background or 'fragrance images process' does now.", cio)
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() != 1 {
		f.Usage()
		return errUsage
	}
	svc, closeFn, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	var mu sync.Mutex
	sum, err := svc.ImportDir(ctx, f.Arg(0), func(r images.ImportedFile) {
		if r.Err != nil {
			mu.Lock()
			fmt.Fprintf(cio.stderr, "skipped %s: %v\n", r.Path, r.Err)
			mu.Unlock()
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "imported %d photos, skipped %d; background removal queued\n", sum.Imported, sum.Skipped)
	return nil
}

func runImagesProcess(ctx context.Context, args []string, cio cmdIO) error {
	f := newImageFlags("process", "process [--db PATH] [--image-dir DIR] [--all [--force] | --id N] [--workers N]\n\n"+
		"Makes transparent-background images. Without --all or --id it runs the queued jobs.\n"+
		"--all queues every perfume whose image is not done yet (with --force: every perfume);\n"+
		"--id queues one perfume. Perfumes without a photo get their generated bottle.\n"+
		"Beside a running server, keep it in the background: --cpu-budget 25, or run it\n"+
		"under 'nice -n 19'.", cio)
	// Like every flag, the action flags have their environment variables
	// (for a scheduled job); the usage shows them, and --force still needs
	// --all.
	all := f.Bool("all", false, "queue every perfume whose transparent image is not done")
	force := f.Bool("force", false, "with --all: redo done images too")
	idFlag := f.Int("id", 0, "queue the perfume with this numeric id")
	workers := f.Int("workers", runtime.NumCPU(), "jobs run at once")
	budget := f.Int("cpu-budget", 0, "percent of one core the workers may use together, resting after each job (e.g. 25 beside a running server); 0: no limit")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if *budget < 0 {
		return fmt.Errorf("--cpu-budget %d: want a percentage of one core, 0 or more", *budget)
	}
	id := int64(*idFlag)
	if f.NArg() != 0 || (*all && id != 0) || (*force && !*all) {
		f.Usage()
		return errUsage
	}
	svc, closeFn, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	if err := queueJobs(ctx, svc, *all, *force, id); err != nil {
		return err
	}
	return drainJobs(ctx, svc, *workers, float64(*budget)/100, cio)
}

// queueJobs enqueues what --all, --force and --id ask for.
func queueJobs(ctx context.Context, svc *images.Service, all, force bool, id int64) error {
	switch {
	case id != 0:
		if !svc.Known(id) {
			return fmt.Errorf("no perfume has numeric id %d", id)
		}
		return svc.Enqueue(ctx, []int64{id})
	case all:
		ids := svc.AllIDs()
		if !force {
			kept := ids[:0]
			for _, id := range ids {
				if !svc.TransparentAvailable(id) {
					kept = append(kept, id)
				}
			}
			ids = kept
		}
		return svc.Enqueue(ctx, ids)
	}
	return nil
}

// drainJobs runs the queue empty, showing progress, and reports failures.
func drainJobs(ctx context.Context, svc *images.Service, workers int, budget float64, cio cmdIO) error {
	counts, err := svc.JobCounts(ctx)
	if err != nil {
		return err
	}
	bar := newProgress(cio.stderr, counts[imgstore.Pending]+counts[imgstore.Processing])
	var mu sync.Mutex
	var done int
	var failed []string
	err = svc.NewWorker(images.WorkerConfig{Workers: max(1, workers), Pause: -1, CPUBudget: budget}).Drain(ctx, func(r images.JobResult) {
		mu.Lock()
		defer mu.Unlock()
		done++
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("%d: %v", r.ID, r.Err))
		}
		bar.set(done)
	})
	bar.done()
	if err != nil {
		return err
	}
	sort.Strings(failed)
	for i, msg := range failed {
		if i == 20 {
			fmt.Fprintf(cio.stderr, "... and %d more\n", len(failed)-20)
			break
		}
		fmt.Fprintln(cio.stderr, "failed", msg)
	}
	fmt.Fprintf(cio.stdout, "processed %d images: %d done, %d failed\n", done, done-len(failed), len(failed))
	if len(failed) > 0 {
		return fmt.Errorf("%d images failed (see above; 'fragrance images status' counts them)", len(failed))
	}
	return nil
}

func runImagesStatus(ctx context.Context, args []string, cio cmdIO) error {
	f := newImageFlags("status", "status [--db PATH]", cio)
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	svc, closeFn, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	counts, err := svc.JobCounts(ctx)
	if err != nil {
		return err
	}
	var parts []string
	for _, st := range []imgstore.State{imgstore.Pending, imgstore.Processing, imgstore.Done, imgstore.Failed} {
		parts = append(parts, fmt.Sprintf("%s %d", st, counts[st]))
	}
	fmt.Fprintf(cio.stdout, "image jobs: %s (images in %s)\n", strings.Join(parts, ", "), imageDirOf(f))
	return nil
}

// imageDirOf says where the images are, for messages (see openImageStore).
func imageDirOf(f *imageFlags) string {
	if *f.imageDir != "" {
		return *f.imageDir
	}
	if isPostgres(*f.db) {
		return "the database"
	}
	return filepath.Clean(imgfiles.DefaultDir(*f.db))
}
