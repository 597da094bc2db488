// Package imgfiles is the default blob backend of the image host: image
// bytes as files in one directory, beside the SQLite database by default.
// It meets imgstore.Blobs; the job queue lives in the database.
package imgfiles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/imgstore"
)

// FS keeps image blobs as files under one directory:
// <dir>/<kind>/<id mod 1000, 3 digits>/<id>.<ext>. The middle level keeps
// directories small (a full catalogue has some 37,000 perfumes).
type FS struct {
	dir string
}

var _ imgstore.Blobs = (*FS)(nil)

// NewFS returns a blob store rooted at dir, creating the directory.
func NewFS(dir string) (*FS, error) {
	if dir == "" {
		return nil, errors.New("image store: empty directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("image store: %w", err)
	}
	return &FS{dir: dir}, nil
}

// DefaultDir is where the images of the SQLite database at dbPath live by
// default: beside it, "fragrance.db" → "fragrance-images".
func DefaultDir(dbPath string) string {
	base := filepath.Base(dbPath)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return filepath.Join(filepath.Dir(dbPath), base+"-images")
}

// Dir returns the root directory.
func (s *FS) Dir() string { return s.dir }

// path is the file of one blob; the extension tells a person browsing the
// directory what the file is.
func (s *FS) path(kind imgstore.Kind, id int64) (string, error) {
	if !kind.Valid() {
		return "", fmt.Errorf("image store: unknown kind %q", kind)
	}
	if id < 0 {
		return "", fmt.Errorf("image store: negative id %d", id)
	}
	ext := ".jpg"
	if kind == imgstore.Nobg {
		ext = ".webp"
	}
	shard := fmt.Sprintf("%03d", id%1000)
	return filepath.Join(s.dir, string(kind), shard, strconv.FormatInt(id, 10)+ext), nil
}

// PutImage writes the blob to a temporary file and renames it into place,
// so readers never see a half-written image, even after a crash.
func (s *FS) PutImage(ctx context.Context, kind imgstore.Kind, id int64, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := s.path(kind, id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("image store: put %s %d: %w", kind, id, err)
	}
	return nil
}

// Image reads one blob.
func (s *FS) Image(ctx context.Context, kind imgstore.Kind, id int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := s.path(kind, id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("image %s %d: %w", kind, id, catalog.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("image store: read %s %d: %w", kind, id, err)
	}
	return data, nil
}
