package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"
)

// stdJSON is encoding/json's encoding of v without HTML escaping and
// without the Encoder's newline.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"Hermès <&> Ü ß 香水", "\u2028\u2029", "bad \xff utf8 \xe2\x82", "emoji 🌹",
	} {
		if got, want := AppendString(nil, s), stdJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 3.86, 100, 99.9, 1e-7, 1.5e-6, 1e20, 1e21, 123456789.125, -2.5e-9, math.MaxFloat64, math.SmallestNonzeroFloat64,
		47, -100, 1e15, 1<<53 - 1, 1 << 53, 1<<53 + 2, 4503599627370497, math.Copysign(0, -1)} {
		if got, want := AppendFloat(nil, f), stdJSON(t, f); !bytes.Equal(got, want) {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	if got := string(AppendFloat(nil, math.NaN())); got != "null" {
		t.Errorf("NaN = %s, want null", got)
	}
}

// TestAppendFloatHundredths holds the short way for numbers of at most two
// decimals to encoding/json: every such number to ±2,000, and random ones
// up to the billion where it stops, with those either side of each.
func TestAppendFloatHundredths(t *testing.T) {
	check := func(f float64) {
		if got, want := AppendFloat(nil, f), stdJSON(t, f); !bytes.Equal(got, want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	for c := -200_000; c <= 200_000; c++ {
		check(float64(c) / 100)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		f := float64(rng.Int64N(100_000_000_000)) / 100
		check(f)
		check(math.Nextafter(f, 0))
		check(math.Nextafter(f, 2e9))
		check(-f)
	}
	for _, f := range []float64{0.01, 0.005, 0.015, 999_999_999.99, 1e9 - 0.01, 1e9 + 0.01, 0.1 + 0.2, 1.005, 2.675} {
		check(f)
		check(-f)
	}
}

// FuzzAppendString holds the string encoder to encoding/json's output for
// any input, catalogue names and descriptions being outside input.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "Hermès", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), stdJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// FuzzAppendFloat holds the number encoder to encoding/json's output.
func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, 3.86, 1e-7, 1e21, -0.25} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if got, want := AppendFloat(nil, v), stdJSON(t, v); !bytes.Equal(got, want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", v, got, want)
		}
	})
}

// plainPrefix8 is how many of the eight bytes of s are plain before the
// first that is not, as AppendStringBody reads notPlain8; 8 when all are.
func plainPrefix8(s string) int { return bits.TrailingZeros64(notPlain8(s)) / 8 }

// TestPlainPrefix8 holds the eight-byte test to the byte table: every byte
// value in every lane, among plain bytes; and with two bytes that are not
// plain, the first is found (a borrow from the lower lane must neither
// hide the higher one nor be taken for an earlier one).
func TestPlainPrefix8(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']'} {
		for lane := range 8 {
			for c := range 256 {
				b := bytes.Repeat([]byte{fill}, 8)
				b[lane] = byte(c)
				want := 8
				if !plainASCII[c] {
					want = lane
				}
				if got := plainPrefix8(string(b)); got != want {
					t.Fatalf("plainPrefix8(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
	for lo := range 8 {
		for hi := lo + 1; hi < 8; hi++ {
			for _, pair := range [][2]byte{{0, '"'}, {'\\', 0x1f}, {0x80, 0}, {0x1f, 0xff}, {'"', '\\'}, {0, 0}, {0x1f, 0x20}, {0xc3, 0xa8}} {
				b := bytes.Repeat([]byte{'x'}, 8)
				b[lo], b[hi] = pair[0], pair[1]
				want := lo
				if plainASCII[pair[0]] {
					want = hi
					if plainASCII[pair[1]] {
						want = 8
					}
				}
				if got := plainPrefix8(string(b)); got != want {
					t.Fatalf("plainPrefix8(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

func BenchmarkAppendString(b *testing.B) {
	for _, s := range []string{"maison-francis-kurkdjian-baccarat-rouge-540", "Baccarat Rouge 540", "Hermès Terre d'Hermès"} {
		b.Run(s[:min(len(s), 12)], func(b *testing.B) {
			buf := make([]byte, 0, 256)
			for b.Loop() {
				buf = AppendString(buf[:0], s)
			}
		})
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	for _, f := range []float64{3.82, 87.5, 100, 0.125, 1e-7} {
		b.Run(strconv.FormatFloat(f, 'g', -1, 64), func(b *testing.B) {
			buf := make([]byte, 0, 64)
			for b.Loop() {
				buf = AppendFloat(buf[:0], f)
			}
		})
	}
}
