package admin

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRecoveryCodes(t *testing.T) {
	codes, hashes := NewRecoveryCodes(RecoveryCodes)
	if len(codes) != RecoveryCodes || len(hashes) != RecoveryCodes {
		t.Fatalf("%d codes, %d hashes; want %d of each", len(codes), len(hashes), RecoveryCodes)
	}
	shape := regexp.MustCompile(`^[a-z2-7]{5}-[a-z2-7]{5}$`)
	seen := map[string]bool{}
	for i, c := range codes {
		if !shape.MatchString(c) || seen[c] {
			t.Fatalf("code %q: want a new abcde-fghij", c)
		}
		seen[c] = true
		if strings.Contains(hashes[i], strings.ReplaceAll(c, "-", "")) || len(hashes[i]) != 64 {
			t.Fatalf("hash %q of %q: want a SHA-256, not the code", hashes[i], c)
		}
	}

	// Each code works once, typed any way; the others stay.
	rest, ok := UseRecoveryCode(hashes, " "+strings.ToUpper(codes[3])+" ")
	if !ok || len(rest) != RecoveryCodes-1 || slices.Contains(rest, hashes[3]) {
		t.Fatalf("using code 3: ok=%v, %d left (holds its hash: %v)", ok, len(rest), slices.Contains(rest, hashes[3]))
	}
	if len(hashes) != RecoveryCodes || hashes[3] == "" {
		t.Fatal("UseRecoveryCode changed the slice it was given")
	}
	if again, ok := UseRecoveryCode(rest, codes[3]); ok || len(again) != len(rest) {
		t.Fatal("a spent code works again")
	}
	rest, ok = UseRecoveryCode(rest, strings.ReplaceAll(codes[0], "-", ""))
	if !ok || len(rest) != RecoveryCodes-2 {
		t.Fatalf("code 0 without its dash: ok=%v, %d left", ok, len(rest))
	}
	for _, bad := range []string{"", "abcde-fghij", codes[1] + "x", "-----"} {
		if _, ok := UseRecoveryCode(rest, bad); ok {
			t.Errorf("UseRecoveryCode(%q) = ok", bad)
		}
	}
	if _, ok := UseRecoveryCode(nil, codes[1]); ok {
		t.Error("a code works with no hashes")
	}
	// MatchRecoveryCode names the hash to spend, and changes nothing.
	if h, ok := MatchRecoveryCode(hashes, strings.ToUpper(codes[5])); !ok || h != hashes[5] {
		t.Errorf("MatchRecoveryCode of code 5 = %q, %v; want its hash", h, ok)
	}
	if h, ok := MatchRecoveryCode(hashes[:5], codes[5]); ok || h != "" {
		t.Errorf("MatchRecoveryCode of a code not among the hashes = %q, %v", h, ok)
	}
}
