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
// possible way, and swaps every pair of adjacent characters: all are refused.
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
	// A whole key is taken for its prefix; a malformed one (a typo) is
	// refused without being repeated.
	key, _ := apikey.GenerateKey()
	pk, _ := apikey.ParseKey(key)
	if got, err := apikey.NormalizePrefix(key); err != nil || got != pk.Prefix {
		t.Errorf("NormalizePrefix(whole key) = %q, %v; want %s", got, err, pk.Prefix)
	}
	typo := key[:len(key)-1] + "!"
	if _, err := apikey.NormalizePrefix(typo); err == nil || strings.Contains(err.Error(), key[12:30]) {
		t.Errorf("NormalizePrefix(malformed key) = %v: accepted, or repeats the secret", err)
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

func TestRedactSecrets(t *testing.T) {
	key, _ := apikey.GenerateKey()
	pk, _ := apikey.ParseKey(key)
	red := pk.Prefix + "[REDACTED]"
	for in, want := range map[string]string{
		"":                            "",
		"/api/perfumes/dior-sauvage":  "/api/perfumes/dior-sauvage",
		"q=fds_AbC12345":              "q=fds_AbC12345", // a prefix is no secret
		"/api/perfumes/" + key:        "/api/perfumes/" + red,
		"q=" + key + "&x=" + key:      "q=" + red + "&x=" + red,
		"key=fds%5F" + key[4:] + "&a": "key=fds%5F" + key[4:12] + "[REDACTED]&a",
		"fds fds_ fds%5" + key:        "fds fds_ fds%5" + red,
		key[:40]:                      pk.Prefix + "[REDACTED]", // a part of a key is still secret
	} {
		if got := apikey.RedactSecrets(in); got != want {
			t.Errorf("RedactSecrets(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzRedactSecrets(f *testing.F) {
	key, _ := apikey.GenerateKey()
	for _, s := range []string{"", key, "a=" + key, "fds%5F" + key[4:], "fdsfds_fds"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := apikey.RedactSecrets(s)
		if strings.Contains(out, key) || strings.Contains(out, key[12:]) {
			t.Fatalf("a key survived: %q", out)
		}
		if apikey.RedactSecrets(out) != out {
			t.Fatalf("not idempotent: %q", out)
		}
	})
}
