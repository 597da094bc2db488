package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The key format: "fds_", 43 random base62 characters (256 bits from the
// CSPRNG) and a 6-character base62 CRC32 checksum of the random part, in the
// manner of GitHub's tokens. The checksum lets a mistyped key be refused
// without a store lookup; it is no secret and protects nothing by itself.
const (
	KeyScheme       = "fds_"
	keyRandomLen    = 43
	keyChecksumLen  = 6
	keyLen          = len(KeyScheme) + keyRandomLen + keyChecksumLen
	displayRandLen  = 8
	base62          = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	base62RejectMin = 248 // 4*62: bytes at or above it are rejected so each character is uniform
)

// ErrMalformedKey reports a string that is not a well-formed key (wrong
// scheme, length, characters or checksum). It matches catalog.ErrInvalid.
var ErrMalformedKey = fmt.Errorf("malformed API key: %w", catalog.ErrInvalid)

// ParsedKey is what a well-formed key string yields: the values the store is
// searched by. The secret itself is not kept.
type ParsedKey struct {
	// Prefix is the short display prefix, e.g. "fds_AbC12345".
	Prefix string
	// Hash is the hex SHA-256 of the whole key, the only form stored.
	Hash string
}

// GenerateKey returns a new random key string from crypto/rand.
func GenerateKey() (string, error) { return GenerateKeyFrom(rand.Reader) }

// GenerateKeyFrom returns a new key whose random part is read from r (tests
// pass a deterministic reader; production uses crypto/rand).
func GenerateKeyFrom(r io.Reader) (string, error) {
	var b strings.Builder
	b.Grow(keyLen)
	b.WriteString(KeyScheme)
	buf := make([]byte, 64)
	n := 0
	for n < keyRandomLen {
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", fmt.Errorf("generate API key: %w", err)
		}
		for _, c := range buf {
			if c >= base62RejectMin || n == keyRandomLen {
				continue
			}
			b.WriteByte(base62[int(c)%62])
			n++
		}
	}
	random := b.String()[len(KeyScheme):]
	sum := checksumOf(random)
	b.Write(sum[:])
	return b.String(), nil
}

// checksumOf is the base62 CRC32 (IEEE) of the random part, fixed width.
// The CRC is computed here from the package's table: crc32.ChecksumIEEE
// makes its argument escape, an allocation on every request.
func checksumOf(random string) [keyChecksumLen]byte {
	crc := ^uint32(0)
	for i := 0; i < len(random); i++ {
		crc = crc32.IEEETable[byte(crc)^random[i]] ^ crc>>8
	}
	v := uint64(^crc)
	var out [keyChecksumLen]byte
	for i := keyChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[v%62]
		v /= 62
	}
	return out
}

// isBase62 marks the bytes of base62.
var isBase62 = func() (t [256]bool) {
	for i := 0; i < len(base62); i++ {
		t[base62[i]] = true
	}
	return t
}()

// ParseKey checks the format and checksum of s and returns its prefix and
// hash. It never consults a store, so it is safe to run on every request.
func ParseKey(s string) (ParsedKey, error) {
	sum, ok := Check(s)
	if !ok {
		return ParsedKey{}, ErrMalformedKey
	}
	// A copy: a substring would keep the whole secret alive.
	return ParsedKey{Prefix: strings.Clone(s[:len(KeyScheme)+displayRandLen]), Hash: StoredHash(sum)}, nil
}

// Check checks the format and checksum of s and returns its SHA-256,
// without allocating: the Guard runs it on every request and looks its
// cache up by the sum, making the hex form only to ask the store.
func Check(s string) (sum Sum, ok bool) {
	if sum, ok = Hash(s); !ok || !ChecksumOK(s) {
		return Sum{}, false
	}
	return sum, true
}

// Hash checks the shape of s (its length, scheme and alphabet), not its
// checksum, and returns its SHA-256, without allocating. The Guard looks
// its cache up by the sum first: a key found there passed ChecksumOK
// when it was cached, and only a key not found is checked before the
// store is asked.
func Hash(s string) (sum Sum, ok bool) {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyScheme) {
		return sum, false
	}
	for i := len(KeyScheme); i < len(s); i++ {
		if !isBase62[s[i]] {
			return sum, false
		}
	}
	var buf [keyLen]byte // []byte(s) would allocate: s is over 32 bytes
	return sha256.Sum256(buf[:copy(buf[:], s)]), true
}

// ChecksumOK reports whether the last characters of s, a key Hash
// accepts, are the checksum of its random part: a key mistyped or cut
// is refused without asking a store.
func ChecksumOK(s string) bool {
	if len(s) != keyLen {
		return false
	}
	body := s[len(KeyScheme):]
	random, check := body[:keyRandomLen], body[keyRandomLen:]
	want := checksumOf(random)
	return string(want[:]) == check
}

// Sum is the SHA-256 of a key string. The Guard checks keys and looks
// its cache up by it on every request; storedHash makes the hex form a
// store keeps (Key.Hash) only when a store is asked, and sumOfHash reads
// it back.
type Sum = [sha256.Size]byte

// StoredHash is the hex form of sum, as a Store keeps it (Key.Hash).
func StoredHash(sum Sum) string { return hex.EncodeToString(sum[:]) }

// SumOfHash is the SHA-256 a hex hash spells, false when it spells none.
func SumOfHash(hash string) (sum Sum, ok bool) {
	if len(hash) != 2*sha256.Size {
		return sum, false
	}
	_, err := hex.Decode(sum[:], []byte(hash))
	return sum, err == nil
}

// NormalizePrefix accepts a display prefix typed by an operator, with or
// without the "fds_" scheme, or a whole key (whose prefix it takes), and
// returns the prefix in stored form. Its errors never repeat an input
// longer than a prefix: that may be a key, whose secret must not reach a
// terminal or a log.
func NormalizePrefix(p string) (string, error) {
	p = strings.TrimSpace(p)
	if k, err := ParseKey(p); err == nil {
		return k.Prefix, nil
	}
	p = strings.TrimPrefix(p, KeyScheme)
	if len(p) > displayRandLen {
		return "", fmt.Errorf("key prefix: %d characters after %s, want %d (a prefix such as %sAbC12345, or the whole key; the argument is not repeated here as it may be a secret): %w",
			len(p), KeyScheme, displayRandLen, KeyScheme, catalog.ErrInvalid)
	}
	if len(p) != displayRandLen {
		return "", fmt.Errorf("key prefix %q: want %s followed by %d characters: %w", p, KeyScheme, displayRandLen, catalog.ErrInvalid)
	}
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(base62, p[i]) < 0 {
			return "", fmt.Errorf("key prefix %q: unexpected character: %w", p, catalog.ErrInvalid)
		}
	}
	return KeyScheme + p, nil
}

// RedactSecrets replaces whatever looks like a key in s (the scheme, as
// "fds_" or percent-encoded "fds%5F", then more base62 characters than a
// prefix has) by its display prefix and "[REDACTED]", for log lines that
// carry outside input: a client may put its key in a path or the wrong
// parameter. Strings without "fds" are returned as they are, at the cost of
// one search.
func RedactSecrets(s string) string {
	if !strings.Contains(s, "fds") {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b or needs no change
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "fds")
		if j < 0 {
			break
		}
		j += i
		scheme := 0
		switch rest := s[j+3:]; {
		case strings.HasPrefix(rest, "_"):
			scheme = 4
		case strings.HasPrefix(rest, "%5F"), strings.HasPrefix(rest, "%5f"):
			scheme = 6
		}
		if scheme == 0 {
			i = j + 3
			continue
		}
		start := j + scheme
		end := start
		for end < len(s) && isBase62[s[end]] {
			end++
		}
		if end-start <= displayRandLen {
			i = j + 3 // the run may hold the next scheme ("fds%5fds_...")
			continue
		}
		b.WriteString(s[done : start+displayRandLen])
		b.WriteString("[REDACTED]")
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
