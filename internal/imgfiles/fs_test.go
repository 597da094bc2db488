package imgfiles_test

import (
	"path/filepath"
	"testing"

	"github.com/fragrance-data/fragrance/internal/imgfiles"
	"github.com/fragrance-data/fragrance/internal/imgstore"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestFS(t *testing.T) {
	storetest.RunImageBlobs(t, func(t *testing.T) imgstore.Blobs {
		s, err := imgfiles.NewFS(filepath.Join(t.TempDir(), "images"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestDefaultDir(t *testing.T) {
	for _, c := range []struct{ db, want string }{
		{"fragrance.db", "fragrance-images"},
		{"/var/lib/fragrance/data.sqlite", "/var/lib/fragrance/data-images"},
		{"noext", "noext-images"},
		{"dir/.hidden", "dir/.hidden-images"},
	} {
		if got := imgfiles.DefaultDir(c.db); got != c.want {
			t.Errorf("DefaultDir(%q) = %q, want %q", c.db, got, c.want)
		}
	}
}
