package admin

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"rsc.io/qr"
)

// rfcSecret is RFC 6238's SHA-1 seed, "12345678901234567890", in base32.
const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

// rfcVectors are RFC 6238 appendix B's SHA-1 codes (eight digits).
var rfcVectors = []struct {
	unix int64
	code string
}{
	{59, "94287082"},
	{1111111109, "07081804"},
	{1111111111, "14050471"},
	{1234567890, "89005924"},
	{2000000000, "69279037"},
	{20000000000, "65353130"},
}

func TestTOTPVectors(t *testing.T) {
	key, err := decodeSecret(rfcSecret)
	if err != nil || string(key) != "12345678901234567890" {
		t.Fatalf("decoded seed %q, %v", key, err)
	}
	for _, v := range rfcVectors {
		at := time.Unix(v.unix, 0)
		if got := hotp(key, totpStep(at), 8); got != v.code {
			t.Errorf("8 digits at %d = %s, want %s", v.unix, got, v.code)
		}
		// Six digits are the last six of the eight (the same number, mod 10^6).
		if got, err := TOTPCode(rfcSecret, at); err != nil || got != v.code[2:] {
			t.Errorf("TOTPCode at %d = %s, %v; want %s", v.unix, got, err, v.code[2:])
		}
	}
}

func TestCheckTOTPWindow(t *testing.T) {
	secret := rfcSecret
	now := time.Date(2026, 3, 1, 12, 0, 10, 0, time.UTC) // 10 s into a step
	code := func(at time.Time) string {
		c, err := TOTPCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{now, true},
		{now.Add(-TOTPPeriod), true},
		{now.Add(TOTPPeriod), true},
		{now.Add(-2 * TOTPPeriod), false},
		{now.Add(2 * TOTPPeriod), false},
	} {
		c := code(tc.at)
		if got := CheckTOTP(secret, c, now); got != tc.ok {
			t.Errorf("the code of now%+v: ok=%v, want %v", tc.at.Sub(now), got, tc.ok)
		}
		// MatchTOTP says which step the code is of, so it can be spent.
		if step, ok := MatchTOTP(secret, c, now); ok != tc.ok || ok && step != TOTPStep(tc.at) {
			t.Errorf("MatchTOTP of the code of now%+v = step %d, %v; want step %d", tc.at.Sub(now), step, ok, TOTPStep(tc.at))
		}
	}
	c := code(now)
	if !CheckTOTP(strings.ToLower(secret), c[:3]+" "+c[3:], now) {
		t.Error("a code typed with a space, for a secret in lower case, is refused")
	}
	for _, bad := range []string{"", "12345", "1234567", "abcdef"} {
		if CheckTOTP(secret, bad, now) {
			t.Errorf("CheckTOTP(%q) = true", bad)
		}
	}
	if CheckTOTP("not base32!", c, now) {
		t.Error("a code checked against a damaged secret")
	}
	if _, err := TOTPCode("", now); err == nil {
		t.Error("TOTPCode of no secret")
	}
}

func TestNewTOTPSecret(t *testing.T) {
	a, b := NewTOTPSecret(), NewTOTPSecret()
	if a == b || len(a) != 32 {
		t.Fatalf("secrets %q, %q: want two different, 32 characters", a, b)
	}
	if key, err := decodeSecret(a); err != nil || len(key) != 20 {
		t.Fatalf("secret %q decodes to %d bytes, %v", a, len(key), err)
	}
}

func TestTOTPURI(t *testing.T) {
	got := TOTPURI("Fragrance Data", "ops+admin@example.com", "JBSWY3DPEHPK3PXP")
	u, err := url.Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if u.Scheme != "otpauth" || u.Host != "totp" || u.Path != "/Fragrance Data:ops+admin@example.com" {
		t.Fatalf("URI %s: scheme %q, host %q, label %q", got, u.Scheme, u.Host, u.Path)
	}
	q := u.Query()
	for k, want := range map[string]string{"secret": "JBSWY3DPEHPK3PXP", "issuer": "Fragrance Data", "algorithm": "SHA1", "digits": "6", "period": "30"} {
		if q.Get(k) != want {
			t.Errorf("%s = %q, want %q (in %s)", k, q.Get(k), want, got)
		}
	}
}

func TestQRCodeSVG(t *testing.T) {
	text := TOTPURI("Fragrance Data", "ops@example.com", NewTOTPSecret())
	svg, err := QRCodeSVG(text, `Scan me <"now">`)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		ViewBox string `xml:"viewBox,attr"`
		Title   string `xml:"title"`
		Paths   []struct {
			D string `xml:"d,attr"`
		} `xml:"path"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, svg)
	}
	if doc.XMLName.Local != "svg" || doc.Title != `Scan me <"now">` || len(doc.Paths) != 1 {
		t.Fatalf("svg %q, title %q, %d paths; want one path and the title", doc.XMLName.Local, doc.Title, len(doc.Paths))
	}
	// The path draws exactly the code's dark modules, inside the margin.
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		t.Fatal(err)
	}
	n := code.Size + 2*qrQuiet
	if doc.ViewBox != fmt.Sprintf("0 0 %d %d", n, n) {
		t.Fatalf("viewBox %q, want a %d-module square", doc.ViewBox, n)
	}
	drawn := map[[2]int]bool{}
	for _, seg := range strings.Split(strings.TrimPrefix(doc.Paths[0].D, "M"), "M") {
		var x, y, w, w2 int
		if _, err := fmt.Sscanf(seg, "%d %dh%dv1h-%dz", &x, &y, &w, &w2); err != nil || w != w2 || w < 1 {
			t.Fatalf("segment %q: %v", seg, err)
		}
		for i := range w {
			drawn[[2]int{x + i - qrQuiet, y - qrQuiet}] = true
		}
	}
	for y := -qrQuiet; y < code.Size+qrQuiet; y++ {
		for x := -qrQuiet; x < code.Size+qrQuiet; x++ {
			if drawn[[2]int{x, y}] != code.Black(x, y) {
				t.Fatalf("module (%d,%d): drawn %v, dark %v", x, y, drawn[[2]int{x, y}], code.Black(x, y))
			}
		}
	}
	// A finder pattern's corner: the code is a real QR code.
	if !code.Black(0, 0) || !code.Black(6, 6) || code.Black(1, 1) {
		t.Fatal("no finder pattern at the top left")
	}
	if _, err := QRCodeSVG(strings.Repeat("x", 4000), "too long"); err == nil {
		t.Fatal("a text too long for a QR code was drawn")
	}
}
