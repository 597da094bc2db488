package admin

import (
	"errors"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// cheap are parameters that make the tests fast; CheckPassword reads them
// from the hash like any others.
var cheap = argonParams{memory: 64, time: 1, threads: 1, saltLen: 16, keyLen: 32}

func TestHashPassword(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Fatalf("hash %q: want PHC argon2id with m=64 MiB, t=3, p=2", h)
	}
	if !CheckPassword(h, "correct horse battery") {
		t.Fatal("the right password does not match its hash")
	}
	if CheckPassword(h, "correct horse batterY") {
		t.Fatal("a wrong password matches")
	}
	if hashWith("correct horse battery", cheap)[26:] == hashWith("correct horse battery", cheap)[26:] {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
}

func TestCheckNewPassword(t *testing.T) {
	for _, tc := range []struct {
		pw string
		ok bool
	}{
		{"", false},
		{"elevenchars", false},
		{"twelve chars", true},
		{"éééééééééééé", true}, // twelve characters, 24 bytes
		{strings.Repeat("x", MaxPasswordLength), true},
		{strings.Repeat("x", MaxPasswordLength+1), false},
		{"twelve chars\xff", false},
	} {
		err := CheckNewPassword(tc.pw)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, catalog.ErrInvalid)) {
			t.Errorf("CheckNewPassword(%q) = %v, want ok=%v (else ErrInvalid)", tc.pw, err, tc.ok)
		}
		if tc.ok {
			continue // HashPassword's cost is paid in TestHashPassword
		}
		if _, err := HashPassword(tc.pw); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("HashPassword(%q): %v, want ErrInvalid", tc.pw, err)
		}
	}
}

// TestCheckPasswordReadsParameters: a hash made with other costs is
// checked with its own.
func TestCheckPasswordReadsParameters(t *testing.T) {
	h := hashWith("a fine password", cheap)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q", h)
	}
	if !CheckPassword(h, "a fine password") || CheckPassword(h, "a fine passwore") {
		t.Fatal("a hash with other parameters is not checked with them")
	}
}

func TestCheckPasswordRefusesDamagedHashes(t *testing.T) {
	good := hashWith("a fine password", cheap)
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	for _, h := range []string{
		"",
		"plain",
		"$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=16$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1,x=2$" + salt + "$" + key,
		"$argon2id$v=19$m=0064,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=4194304,t=1,p=1$" + salt + "$" + key, // 4 GiB
		"$argon2id$v=19$m=64,t=1000,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=0$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$!!$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$",
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + key + "$",
		good + "x",
	} {
		if CheckPassword(h, "a fine password") {
			t.Errorf("CheckPassword(%q) matched", h)
		}
	}
	if CheckPassword(good, strings.Repeat("x", MaxPasswordLength+1)) {
		t.Error("an over-long password matched")
	}
}

// TestDummyHash: the dummy hash is a real one with HashPassword's costs,
// so checking against it costs what a real check costs.
func TestDummyHash(t *testing.T) {
	p, _, key, ok := parseHash(dummyHash)
	if !ok || p.memory != passwordParams.memory || p.time != passwordParams.time || p.threads != passwordParams.threads ||
		len(key) != int(passwordParams.keyLen) {
		t.Fatalf("dummy hash %q reads as %+v, %v; want HashPassword's parameters", dummyHash, p, ok)
	}
	DummyCheckPassword("anything at all")
}

func TestGeneratePassword(t *testing.T) {
	a, b := GeneratePassword(), GeneratePassword()
	if a == b || CheckNewPassword(a) != nil || len(a) < 20 {
		t.Fatalf("generated %q and %q: want two different, acceptable passwords", a, b)
	}
}

func FuzzCheckPassword(f *testing.F) {
	f.Add(hashWith("a fine password", cheap), "a fine password")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA", "x")
	f.Fuzz(func(t *testing.T, hash, pw string) {
		if p, _, _, ok := parseHash(hash); ok && (p.memory > 1024 || p.time > 2) {
			return // valid but costly: not for a fuzzer's loop
		}
		CheckPassword(hash, pw)
	})
}
