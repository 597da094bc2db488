package images_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/images"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// photo draws a plain product shot: a dark bottle on a light backdrop.
func photo(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{245, 245, 242, 255}
			if x > w*3/10 && x < w*7/10 && y > h/4 && y < h*9/10 {
				c = color.RGBA{uint8(60 + x%40), 30, 90, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func writeFile(t *testing.T, path string, enc func(*bytes.Buffer) error) {
	t.Helper()
	var buf bytes.Buffer
	if err := enc(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImportDir(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "31861.jpg"), func(b *bytes.Buffer) error {
		return jpeg.Encode(b, photo(800, 800), &jpeg.Options{Quality: 95}) // square: padded to 3:4
	})
	writeFile(t, filepath.Join(dir, "chanel-coco-mademoiselle.PNG"), func(b *bytes.Buffer) error {
		return png.Encode(b, photo(300, 500))
	})
	writeFile(t, filepath.Join(dir, "99999.jpg"), func(b *bytes.Buffer) error { return jpeg.Encode(b, photo(50, 50), nil) })
	writeFile(t, filepath.Join(dir, "1.jpg"), func(b *bytes.Buffer) error { _, err := b.WriteString("garbage"); return err })
	writeFile(t, filepath.Join(dir, "notes.txt"), func(b *bytes.Buffer) error { _, err := b.WriteString("ignored"); return err })

	var mu sync.Mutex
	var reports []images.ImportedFile
	sum, err := e.svc.ImportDir(ctx, dir, func(f images.ImportedFile) {
		mu.Lock()
		reports = append(reports, f)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Imported != 2 || sum.Skipped != 2 {
		t.Errorf("summary %+v, want 2 imported, 2 skipped", sum)
	}
	sort.Slice(reports, func(i, j int) bool { return reports[i].Path < reports[j].Path })
	for _, r := range reports {
		t.Logf("%s → %d: %v", filepath.Base(r.Path), r.ID, r.Err)
	}
	for _, id := range []int64{31861, 9828} {
		data, err := e.store.Image(ctx, imgstore.Photo, id)
		if err != nil {
			t.Fatalf("photo %d not stored: %v", id, err)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != encode.PhotoWidth || cfg.Height != encode.PhotoHeight {
			t.Errorf("photo %d: %d×%d, %v", id, cfg.Width, cfg.Height, err)
		}
		if len(data) > 30_000 {
			t.Errorf("photo %d is %d bytes, over 30 KB", id, len(data))
		}
		j, err := e.store.Job(ctx, id)
		if err != nil || j.State != imgstore.Pending {
			t.Errorf("job %d = %+v, %v; want pending", id, j, err)
		}
	}
	// The served JPEG is now the imported one.
	res := do(t, e.svc.Handler(), "GET", "/img/perfume/31861.jpg", nil)
	served := body(t, res)
	stored, _ := e.store.Image(ctx, imgstore.Photo, 31861)
	if !bytes.Equal(served, stored) {
		t.Error("the host does not serve the imported photo")
	}
	for _, r := range e.drain(t) {
		if r.Err != nil {
			t.Errorf("job %d: %v", r.ID, r.Err)
		}
	}
	if !e.svc.TransparentAvailable(31861) || !e.svc.TransparentAvailable(9828) {
		t.Error("imported photos not processed")
	}
}

func TestImportDirEmpty(t *testing.T) {
	e := newTestEnv(t)
	if _, err := e.svc.ImportDir(context.Background(), t.TempDir(), nil); err == nil {
		t.Fatal("import of an empty directory succeeded")
	}
	_, err := e.svc.ImportDir(context.Background(), filepath.Join(t.TempDir(), "missing"), nil)
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("import of a missing directory: %v", err)
	}
}
