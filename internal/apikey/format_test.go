package apikey_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func TestGenerateAndParseKey(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		k, err := apikey.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		if len(k) != 53 || !strings.HasPrefix(k, "fds_") || seen[k] {
			t.Fatalf("key %q: bad shape or repeated", k)
		}
		seen[k] = true
		pk, err := apikey.ParseKey(k)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", k, err)
		}
		if pk.Prefix != k[:12] || pk.Hash != apikey.StoredHash(sha256.Sum256([]byte(k))) || len(pk.Hash) != 64 {
			t.Fatalf("parsed %+v", pk)
		}
	}
}

// TestKeyChecksumCatchesTypos changes every character of a key in every
// possible way, and swaps every pair of neighbours: all are refused.
func TestKeyChecksumCatchesTypos(t *testing.T) {
	k, err := apikey.GenerateKeyFrom(bytes.NewReader(bytes.Repeat([]byte("some fixed bytes for a key"), 20)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apikey.ParseKey(k); err != nil {
		t.Fatal(err)
	}
	b := []byte(k)
	for i := 4; i < len(b); i++ {
		orig := b[i]
		for _, c := range []byte(base62) {
			if c == orig {
				continue
			}
			b[i] = c
			if _, err := apikey.ParseKey(string(b)); err == nil {
				t.Fatalf("typo at %d (%c→%c) accepted", i, orig, c)
			}
		}
		b[i] = orig
		if i+1 < len(b) && b[i] != b[i+1] {
			b[i], b[i+1] = b[i+1], b[i]
			if _, err := apikey.ParseKey(string(b)); err == nil {
				t.Fatalf("swap at %d accepted", i)
			}
			b[i], b[i+1] = b[i+1], b[i]
		}
	}
}

func TestParseKeyRefuses(t *testing.T) {
	good, _ := apikey.GenerateKey()
	for _, s := range []string{"", "fds_", good[:52], good + "A", "xyz_" + good[4:], strings.Replace(good, good[10:11], "-", 1), " " + good[1:]} {
		if _, err := apikey.ParseKey(s); !errors.Is(err, apikey.ErrMalformedKey) || !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("ParseKey(%q) = %v, want ErrMalformedKey", s, err)
		}
	}
}

func TestNormalizePrefix(t *testing.T) {
	for in, want := range map[string]string{"fds_AbC12345": "fds_AbC12345", "AbC12345": "fds_AbC12345", " fds_AbC12345 ": "fds_AbC12345"} {
		if got, err := apikey.NormalizePrefix(in); err != nil || got != want {
			t.Errorf("NormalizePrefix(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "fds_", "AbC1234", "AbC123456", "AbC1234!"} {
		if _, err := apikey.NormalizePrefix(in); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("NormalizePrefix(%q) accepted", in)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	good, _ := apikey.GenerateKey()
	for _, s := range []string{good, good[:20], "fds_", "", strings.ToLower(good), "fds_" + strings.Repeat("0", 49)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pk, err := apikey.ParseKey(s)
		if err != nil {
			return
		}
		if len(s) != 53 || !strings.HasPrefix(s, "fds_") || pk.Prefix != s[:12] || pk.Hash != apikey.StoredHash(sha256.Sum256([]byte(s))) {
			t.Fatalf("accepted %q as %+v", s, pk)
		}
		if _, err := apikey.NormalizePrefix(pk.Prefix); err != nil {
			t.Fatalf("prefix of an accepted key does not normalise: %v", err)
		}
	})
}
