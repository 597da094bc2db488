package admin

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
)

// RecoveryCodes is how many recovery codes an admin gets on enrolling a
// second factor: each signs in once in place of a code.
const RecoveryCodes = 10

// recoveryLen is the length of a recovery code without its dash: 10
// base32 characters, 50 random bits (enough for a code that works once
// and sits behind the password and the sign-in limits).
const recoveryLen = 10

// NewRecoveryCodes returns n fresh recovery codes, shown to the admin
// once ("abcde-fghij", lower-case base32), and their hashes, which the
// store keeps (User.RecoveryHashes).
func NewRecoveryCodes(n int) (codes, hashes []string) {
	for range n {
		raw := strings.ToLower(rand.Text()[:recoveryLen])
		codes = append(codes, raw[:recoveryLen/2]+"-"+raw[recoveryLen/2:])
		hashes = append(hashes, recoveryHash(raw))
	}
	return codes, hashes
}

// UseRecoveryCode reports whether code is one of the codes hashes were
// made from and returns hashes without it (see MatchRecoveryCode). Without
// a match, rest is hashes as they were.
func UseRecoveryCode(hashes []string, code string) (rest []string, ok bool) {
	hash, ok := MatchRecoveryCode(hashes, code)
	if !ok {
		return hashes, false
	}
	match := slices.Index(hashes, hash)
	rest = make([]string, 0, len(hashes)-1)
	rest = append(rest, hashes[:match]...)
	return append(rest, hashes[match+1:]...), true
}

// MatchRecoveryCode reports whether code is one of the codes hashes were
// made from, and returns its hash: the caller spends it in the store
// (Store.SpendRecoveryCode), which lets it be spent once. Case, spaces and
// dashes in code are ignored; every hash is compared, in constant time,
// whichever matches.
func MatchRecoveryCode(hashes []string, code string) (hash string, ok bool) {
	norm := normalizeRecovery(code)
	if len(norm) != recoveryLen {
		return "", false
	}
	h := []byte(recoveryHash(norm))
	match := -1
	for i, stored := range hashes {
		if subtle.ConstantTimeCompare(h, []byte(stored)) == 1 && match < 0 {
			match = i
		}
	}
	if match < 0 {
		return "", false
	}
	return hashes[match], true
}

// normalizeRecovery is a typed code as hashed: lower case, without
// spaces and dashes.
func normalizeRecovery(code string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, strings.TrimSpace(code))
}

// recoveryHash is the stored form of a normalised code: its hex SHA-256.
func recoveryHash(norm string) string {
	h := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(h[:])
}
