package apikey

import (
	"crypto/sha256"
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestChecksumIsCRC32IEEE holds checksumOf to the CRC32 (IEEE) of the
// library: keys issued by earlier releases must keep parsing.
func TestChecksumIsCRC32IEEE(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		b := make([]byte, keyRandomLen)
		for j := range b {
			b[j] = base62[rng.IntN(len(base62))]
		}
		v := uint64(crc32.ChecksumIEEE(b))
		var want [keyChecksumLen]byte
		for j := keyChecksumLen - 1; j >= 0; j-- {
			want[j] = base62[v%62]
			v /= 62
		}
		if got := checksumOf(string(b)); got != want {
			t.Fatalf("checksumOf(%q) = %q, want %q", b, got, want)
		}
	}
	// Issued by release 1.3.0.
	if _, err := ParseKey("fds_sbIHX2pjxT7L0DWeASPeD1h5NErXpRkR35x8ykAdtkj2xzeLk"); err != nil {
		t.Fatalf("a key of an earlier release: %v", err)
	}
}

func TestCheckKeyAllocates(t *testing.T) {
	const k = "fds_sbIHX2pjxT7L0DWeASPeD1h5NErXpRkR35x8ykAdtkj2xzeLk"
	if n := testing.AllocsPerRun(100, func() { Check(k) }); n != 0 {
		t.Fatalf("Check allocates %v times per call, want 0", n)
	}
	sum, _ := Check(k)
	if back, ok := SumOfHash(StoredHash(sha256.Sum256([]byte(k)))); !ok || back != sum {
		t.Fatal("SumOfHash(StoredHash(sha256.Sum256([]byte(k)))) is not the sum Check returns")
	}
}
