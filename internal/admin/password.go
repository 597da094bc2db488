package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Bounds of an admin's password: long enough to resist guessing, short
// enough that hashing it costs nothing extra.
const (
	MinPasswordLength = 12   // characters
	MaxPasswordLength = 1024 // bytes
)

// argonParams are the cost and sizes of one argon2id hash.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
	saltLen uint32
	keyLen  uint32
}

// PasswordMemory is the memory one check of a password HashPassword made
// holds while it runs, in bytes: what a bound on checks at once is sized
// by.
const PasswordMemory = 64 << 20

// passwordParams is what HashPassword uses: 64 MiB, three passes, two
// lanes (RFC 9106's second recommendation with two lanes; above OWASP's
// minimum), a 16-byte salt and a 32-byte hash.
var passwordParams = argonParams{memory: PasswordMemory >> 10, time: 3, threads: 2, saltLen: 16, keyLen: 32}

// Bounds CheckPassword accepts in a stored hash, so a damaged or forged
// row cannot make one check cost minutes or gigabytes.
const (
	maxMemory  = 1 << 20 // KiB: 1 GiB
	maxTime    = 20
	maxThreads = 16
)

// CheckNewPassword refuses a password an admin may not choose: shorter
// than MinPasswordLength characters or longer than MaxPasswordLength
// bytes, with an error wrapping catalog.ErrInvalid.
func CheckNewPassword(pw string) error {
	switch {
	case !utf8.ValidString(pw):
		return fmt.Errorf("the password is not valid UTF-8: %w", catalog.ErrInvalid)
	case utf8.RuneCountInString(pw) < MinPasswordLength:
		return fmt.Errorf("the password is shorter than %d characters: %w", MinPasswordLength, catalog.ErrInvalid)
	case len(pw) > MaxPasswordLength:
		return fmt.Errorf("the password is longer than %d bytes: %w", MaxPasswordLength, catalog.ErrInvalid)
	}
	return nil
}

// HashPassword returns the argon2id hash of pw in PHC string form
// ($argon2id$v=19$m=65536,t=3,p=2$salt$hash, unpadded standard base64),
// with a fresh random salt. A password CheckNewPassword refuses gives its
// error.
func HashPassword(pw string) (string, error) {
	if err := CheckNewPassword(pw); err != nil {
		return "", err
	}
	return hashWith(pw, passwordParams), nil
}

// hashWith hashes pw with p (tests use cheaper parameters).
func hashWith(pw string, p argonParams) string {
	salt := make([]byte, p.saltLen)
	rand.Read(salt) // never fails (crypto/rand since Go 1.24)
	key := argon2.IDKey([]byte(pw), salt, p.time, p.memory, p.threads, p.keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// CheckPassword reports whether pw is the password hash was made from. It
// reads the parameters from hash (so hashes made with older costs keep
// working) and compares in constant time; a hash it cannot read, or whose
// costs are out of bounds, matches nothing.
func CheckPassword(hash, pw string) bool {
	p, salt, key, ok := parseHash(hash)
	if !ok || len(pw) > MaxPasswordLength {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.time, p.memory, p.threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// dummyHash is the hash of a password nobody knows, made with
// passwordParams: DummyCheckPassword checks against it.
const dummyHash = "$argon2id$v=19$m=65536,t=3,p=2$WSLeIZ/kBc3tpfuHckESXg$Mi30L5ToQcBRqcN6+vuXc49UFNrrWMUvLeW0uVTJOdM"

// DummyCheckPassword costs what CheckPassword costs and learns nothing:
// a sign-in naming no admin (or a disabled one) calls it, so it takes as
// long as a wrong password for a real one and the timing tells nobody
// which emails are admins'.
func DummyCheckPassword(pw string) {
	CheckPassword(dummyHash, pw)
}

// parseHash reads a PHC argon2id string.
func parseHash(hash string) (p argonParams, salt, key []byte, ok bool) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, nil, nil, false
	}
	var threads uint32
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &threads); err != nil || n != 3 ||
		fmt.Sprintf("m=%d,t=%d,p=%d", p.memory, p.time, threads) != parts[3] {
		return p, nil, nil, false
	}
	if p.memory < 8 || p.memory > maxMemory || p.time < 1 || p.time > maxTime || threads < 1 || threads > maxThreads ||
		p.memory < 8*threads {
		return p, nil, nil, false
	}
	p.threads = uint8(threads)
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return p, nil, nil, false
	}
	key, err = b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, false
	}
	return p, salt, key, true
}

// GeneratePassword returns a fresh random password: 26 characters of
// base32 (130 bits from crypto/rand), for an admin made or reset without
// one given.
func GeneratePassword() string {
	return rand.Text()
}
