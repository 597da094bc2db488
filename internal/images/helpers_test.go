package images_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/sqlite"
)

// testPerfumes is a small catalogue: ids as in image URLs, slugs for imports.
var testPerfumes = []catalog.Perfume{
	{ID: 31861, Slug: "dior-sauvage", Name: "Sauvage", Brand: "Dior", Concentration: "Eau de Toilette",
		Accords: []catalog.AccordStrength{{Name: "fresh spicy", Strength: 100}, {Name: "amber", Strength: 70}}},
	{ID: 9828, Slug: "chanel-coco-mademoiselle", Name: "Coco Mademoiselle", Brand: "Chanel",
		Accords: []catalog.AccordStrength{{Name: "citrus", Strength: 100}}},
	{ID: 1, Slug: "tom-ford-tobacco-vanille", Name: "Tobacco Vanille", Brand: "Tom Ford"},
}

// accordColor stands in for the bundled colour table.
func accordColor(name string) string {
	return map[string]string{"fresh spicy": "#83C928", "amber": "#BC4D10", "citrus": "#F9FF52"}[name]
}

// testEnv is a service over a real SQLite job store and filesystem blobs.
type testEnv struct {
	svc   *images.Service
	db    *sqlite.DB
	store imgstore.Store
	dir   string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "test.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close the test database: %v", err)
		}
	})
	blobs, err := imgfiles.NewFS(imgfiles.DefaultDir(path))
	if err != nil {
		t.Fatal(err)
	}
	store := imgstore.With(blobs, db)
	svc, err := images.New(context.Background(), images.Config{
		BaseURL:     "https://img.example.com/",
		AccordColor: accordColor,
	}, store, images.NewCatalogue(testPerfumes))
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{svc: svc, db: db, store: store, dir: dir}
}

// drain runs every queued job to the end.
func (e *testEnv) drain(t *testing.T) []images.JobResult {
	t.Helper()
	var res []images.JobResult
	w := e.svc.NewWorker(images.WorkerConfig{Workers: 1, Pause: -1})
	if err := w.Drain(context.Background(), func(r images.JobResult) { res = append(res, r) }); err != nil {
		t.Fatal(err)
	}
	return res
}
