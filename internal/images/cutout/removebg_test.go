package cutout

import (
	"fmt"
	"image"
	"testing"

	"github.com/fragrance-data/fragrance/internal/images/bottle"
	"github.com/fragrance-data/fragrance/internal/images/cutout/cutouttest"
	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// minIoU is the acceptance bar of background removal: the alpha mask must
// overlap the true mask at least this much on every generated scene.
const minIoU = 0.97

func TestRemoveBackgroundIoU(t *testing.T) {
	painter, err := bottle.NewPainter(nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	type result struct{ hard, soft float64 }
	results := make([]result, n)
	t.Run("scenes", func(t *testing.T) {
		for i := range n {
			if racedetect.Enabled && i%3 != 0 {
				continue // the pixel loops have no concurrency to check
			}
			t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
				t.Parallel()
				sc := cutouttest.MakeScene(t, i, 480, 640, painter)
				got, err := RemoveBackground(sc.Image)
				if err != nil {
					t.Fatalf("%s: RemoveBackground: %v", sc.Name, err)
				}
				hard, soft := iou(got, sc.Truth)
				results[i] = result{hard, soft}
				t.Logf("%s: IoU %.4f, soft IoU %.4f", sc.Name, hard, soft)
				if hard < minIoU {
					t.Errorf("%s: IoU %.4f < %.2f", sc.Name, hard, minIoU)
				}
			})
		}
	})
	sumHard, sumSoft, worst, ran := 0.0, 0.0, 1.0, 0
	for _, r := range results {
		if r.hard == 0 {
			continue
		}
		ran++
		sumHard += r.hard
		sumSoft += r.soft
		worst = min(worst, r.hard)
	}
	if ran > 0 {
		t.Logf("over %d scenes: mean IoU %.4f, worst %.4f, mean soft IoU %.4f", ran, sumHard/float64(ran), worst, sumSoft/float64(ran))
	}
}

func TestRemoveBackgroundKeepsEnclosedWhite(t *testing.T) {
	// A white label inside a dark bottle on white: the label is the colour
	// of the backdrop but not connected to the border, so it must stay.
	img := image.NewRGBA(image.Rect(0, 0, 100, 120))
	for y := 0; y < 120; y++ {
		for x := 0; x < 100; x++ {
			o := img.PixOffset(x, y)
			v := uint8(255)
			inBottle := x >= 30 && x < 70 && y >= 30 && y < 100
			inLabel := x >= 40 && x < 60 && y >= 50 && y < 70
			if inBottle && !inLabel {
				v = 40
			}
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = v, v, v, 255
		}
	}
	got, err := RemoveBackground(img)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.NRGBAAt(50, 60).A; a != 255 {
		t.Errorf("white label alpha = %d, want 255", a)
	}
	if a := got.NRGBAAt(5, 5).A; a != 0 {
		t.Errorf("backdrop alpha = %d, want 0", a)
	}
}

func TestRemoveBackgroundRefusesBusyImages(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7919 % 251) // noise everywhere: no backdrop
	}
	if _, err := RemoveBackground(img); err == nil {
		t.Fatal("RemoveBackground of noise succeeded")
	}
}

// iou compares the predicted alpha (≥ 128 is foreground) with the truth,
// and also gives the soft IoU of alpha against the binary truth.
func iou(got *image.NRGBA, truth []bool) (hard, soft float64) {
	var inter, union int
	var sMin, sMax float64
	for j, tr := range truth {
		a := got.Pix[4*j+3]
		p := a >= 128
		if p && tr {
			inter++
		}
		if p || tr {
			union++
		}
		av, tv := float64(a)/255, 0.0
		if tr {
			tv = 1
		}
		sMin += min(av, tv)
		sMax += max(av, tv)
	}
	if union == 0 {
		return 1, 1
	}
	return float64(inter) / float64(union), sMin / sMax
}
