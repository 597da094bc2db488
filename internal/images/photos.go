package images

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decoders for imported photos
	_ "image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	_ "golang.org/x/image/webp"

	"github.com/fragrance-data/fragrance/internal/images/cutout"
	"github.com/fragrance-data/fragrance/internal/images/encode"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// Limits on imported files, against decompression bombs and mistakes.
const (
	maxImportBytes  = 50 << 20
	maxImportPixels = 50_000_000
)

// ImportedFile is the outcome of one file of an import.
type ImportedFile struct {
	Path string
	// ID is the perfume the file was matched to (0 when none).
	ID int64
	// Err says why the file was skipped; nil when it was imported.
	Err error
}

// ImportSummary counts what ImportDir did.
type ImportSummary struct {
	Imported int
	Skipped  int
}

// ImportDir imports the photos in dir (and its subdirectories): files
// named by numeric id or by slug ("1234.jpg", "dior-sauvage.png"), JPEG,
// PNG or WebP of any size. Each is normalised to the source and photo
// sizes, stored, and its background-removal job queued. report, when not
// nil, hears about every file (from several goroutines).
func (s *Service) ImportDir(ctx context.Context, dir string, report func(ImportedFile)) (ImportSummary, error) {
	paths, err := photoFiles(dir)
	if err != nil {
		return ImportSummary{}, err
	}
	if len(paths) == 0 {
		return ImportSummary{}, fmt.Errorf("images: import %s: %w", dir, errNoImage)
	}
	var (
		mu   sync.Mutex
		sum  ImportSummary
		ids  []int64
		wg   sync.WaitGroup
		next = make(chan string)
	)
	for range max(1, min(4, runtime.NumCPU())) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for path := range next {
				id, err := s.importFile(ctx, path)
				mu.Lock()
				if err != nil {
					sum.Skipped++
				} else {
					sum.Imported++
					ids = append(ids, id)
				}
				mu.Unlock()
				if report != nil {
					report(ImportedFile{Path: path, ID: id, Err: err})
				}
			}
		}()
	}
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- p
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	slices.Sort(ids)
	if err := s.Enqueue(ctx, slices.Compact(ids)); err != nil {
		return sum, err
	}
	return sum, nil
}

// photoFiles lists the image files under dir in name order.
func photoFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isPhotoExt(filepath.Ext(d.Name())) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("images: list %s: %w", dir, err)
	}
	return out, nil
}

func isPhotoExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".jpg", ".jpeg", ".png", ".webp":
		return true
	}
	return false
}

// perfumeForFile finds the perfume a file name names: its numeric id or
// its slug, before the extension. The id is returned when found.
func (s *Service) perfumeForFile(name string) (int64, error) {
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	if id, ok := parseNumericID(stem); ok {
		if _, found := s.cat.PerfumeByID(id); found {
			return id, nil
		}
		return 0, fmt.Errorf("no perfume has numeric id %d", id)
	}
	if p, found := s.cat.PerfumeBySlug(strings.ToLower(stem)); found {
		return p.ID, nil
	}
	return 0, fmt.Errorf("no perfume has id or slug %q", stem)
}

// parseNumericID reads a decimal id of up to 18 digits.
func parseNumericID(s string) (int64, bool) {
	if s == "" || len(s) > 18 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// importFile normalises and stores one photo.
func (s *Service) importFile(ctx context.Context, path string) (int64, error) {
	id, err := s.perfumeForFile(filepath.Base(path))
	if err != nil {
		return 0, err
	}
	data, err := readLimited(path, maxImportBytes)
	if err != nil {
		return id, err
	}
	src, photo, err := normalisePhoto(data)
	if err != nil {
		return id, err
	}
	if err := s.store.PutImage(ctx, imgstore.Source, id, src); err != nil {
		return id, err
	}
	if err := s.putServed(ctx, imgstore.Photo, id, photo, versionOf(photo)); err != nil {
		return id, err
	}
	return id, nil
}

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file larger than %d MB", limit>>20)
	}
	return data, nil
}

// normalisePhoto decodes an imported photo and returns the kept source
// (encode.SourceWidth × SourceHeight, high quality) and the served JPEG
// (Photo size, about 20–30 KB). A photo of another shape is fitted inside and
// padded with its own backdrop colour, so nothing of the bottle is cut.
func normalisePhoto(data []byte) (source, photo []byte, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("not a JPEG, PNG or WebP image: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImportPixels {
		return nil, nil, fmt.Errorf("image of %d×%d pixels is empty or too large", cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("decode image: %w", err)
	}
	pad := cutout.BorderColor(img)
	src := encode.FitCanvas(img, encode.SourceWidth, encode.SourceHeight, pad)
	if source, err = encode.JPEGAt(src, encode.SourceQuality); err != nil {
		return nil, nil, err
	}
	if photo, err = encode.JPEG(encode.FitCanvas(src, encode.PhotoWidth, encode.PhotoHeight, pad), encode.PhotoMaxBytes); err != nil {
		return nil, nil, err
	}
	return source, photo, nil
}

// errNoImage is returned for an empty import directory.
var errNoImage = errors.New("no JPEG, PNG or WebP files found")
