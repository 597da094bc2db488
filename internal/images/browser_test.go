package images

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/images/cutout/cutouttest"
	"github.com/fragrance-data/fragrance/internal/images/encode"
)

// chromium finds a headless-capable Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine (apt-get install chromium); skipping the browser check")
	return ""
}

// TestBrowserShowsTransparency shows a processed transparent WebP over a
// magenta page in headless Chromium and reads the screenshot: where the
// truth says background, the page must show through; where it says
// product, it must not.
func TestBrowserShowsTransparency(t *testing.T) {
	bin := chromium(t)
	painter, err := bottle.NewPainter(nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := cutouttest.MakeScene(t, 0, encode.SourceWidth, encode.SourceHeight, painter) // white backdrop, white cap, soft shadows
	src, err := encode.JPEGAt(sc.Image, encode.SourceQuality)
	if err != nil {
		t.Fatal(err)
	}
	webpData, err := transparentFromPhoto(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page, err := os.ReadFile(filepath.Join("testdata", "nobg.html"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"nobg.html": page, "bottle.webp": webpData} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shotPath := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--no-first-run", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=450,600", "--screenshot="+shotPath, "file://"+filepath.Join(dir, "nobg.html"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	shotData, err := os.ReadFile(shotPath)
	if err != nil {
		t.Fatal(err)
	}
	shot, err := png.Decode(bytes.NewReader(shotData))
	if err != nil {
		t.Fatal(err)
	}
	bgMagenta, bgAll, fgMagenta, fgAll := checkShot(shot, sc)
	t.Logf("screenshot %v: %d/%d background pixels show the page, %d/%d product pixels do",
		shot.Bounds().Size(), bgMagenta, bgAll, fgMagenta, fgAll)
	if bgAll == 0 || fgAll == 0 {
		t.Fatal("screenshot too small to check")
	}
	if float64(bgMagenta) < 0.99*float64(bgAll) {
		t.Errorf("only %.2f%% of background pixels show the page: the background is not gone", 100*float64(bgMagenta)/float64(bgAll))
	}
	if float64(fgMagenta) > 0.01*float64(fgAll) {
		t.Errorf("%.2f%% of product pixels show the page: the product was cut", 100*float64(fgMagenta)/float64(fgAll))
	}
}

// checkShot counts, over the pixels whose truth is certain (the same in a
// 5×5 neighbourhood of the source), how many show the magenta page.
func checkShot(shot image.Image, sc cutouttest.Scene) (bgMagenta, bgAll, fgMagenta, fgAll int) {
	b := shot.Bounds()
	for y := 0; y < min(encode.NobgHeight, b.Dy()); y++ {
		for x := 0; x < min(encode.NobgWidth, b.Dx()); x++ {
			tx, ty := x*sc.W/encode.NobgWidth, y*sc.H/encode.NobgHeight
			truth, sure := sureTruth(sc, tx, ty)
			if !sure {
				continue
			}
			r, g, bl, _ := shot.At(b.Min.X+x, b.Min.Y+y).RGBA()
			magenta := r>>8 > 240 && g>>8 < 15 && bl>>8 > 240
			if truth {
				fgAll++
				if magenta {
					fgMagenta++
				}
			} else {
				bgAll++
				if magenta {
					bgMagenta++
				}
			}
		}
	}
	return bgMagenta, bgAll, fgMagenta, fgAll
}

func sureTruth(sc cutouttest.Scene, x, y int) (truth, sure bool) {
	truth = sc.Truth[y*sc.W+x]
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			xx, yy := min(max(x+dx, 0), sc.W-1), min(max(y+dy, 0), sc.H-1)
			if sc.Truth[yy*sc.W+xx] != truth {
				return truth, false
			}
		}
	}
	return truth, true
}
