package admin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"rsc.io/qr"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The second factor is TOTP as RFC 6238 and every authenticator app have
// it: HMAC-SHA-1, six digits, a 30-second step.
const (
	TOTPDigits = 6
	TOTPPeriod = 30 * time.Second
	// TOTPSkew is how many steps before and after now a code is accepted,
	// for clocks that drift and codes typed late.
	TOTPSkew = 1
)

// totpSecretBytes is the size of a new secret (RFC 4226 recommends 160 bits).
const totpSecretBytes = 20

// b32 is unpadded base32, as otpauth:// URIs and authenticator apps have it.
var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewTOTPSecret returns a fresh second-factor secret: 160 random bits in
// unpadded base32 (32 characters).
func NewTOTPSecret() string {
	b := make([]byte, totpSecretBytes)
	rand.Read(b) // never fails (crypto/rand since Go 1.24)
	return b32.EncodeToString(b)
}

// decodeSecret reads a base32 secret as people type it: any case, with
// spaces or padding.
func decodeSecret(secret string) ([]byte, error) {
	s := strings.ToUpper(strings.Join(strings.Fields(secret), ""))
	key, err := b32.DecodeString(strings.TrimRight(s, "="))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("the second-factor secret is not base32: %w", catalog.ErrInvalid)
	}
	return key, nil
}

// TOTPCode returns the code of secret (base32) for the step holding t.
func TOTPCode(secret string, t time.Time) (string, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return "", err
	}
	return hotp(key, totpStep(t), TOTPDigits), nil
}

// CheckTOTP reports whether code is secret's code for the step holding
// now or one of the TOTPSkew steps either side (see MatchTOTP).
func CheckTOTP(secret, code string, now time.Time) bool {
	_, ok := MatchTOTP(secret, code, now)
	return ok
}

// MatchTOTP reports whether code is secret's code for the step holding
// now or one of the TOTPSkew steps either side, and which step it is (the
// latest, should two match): a code works once, so the caller records the
// step (Store.UseTOTPStep) and refuses it and every earlier one after.
// Spaces in code are ignored; the comparison takes the same time whichever
// step matches.
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	key, err := decodeSecret(secret)
	code = strings.Join(strings.Fields(code), "")
	if err != nil || len(code) != TOTPDigits {
		return 0, false
	}
	at := int64(totpStep(now))
	for d := int64(-TOTPSkew); d <= TOTPSkew; d++ {
		match := subtle.ConstantTimeCompare([]byte(hotp(key, uint64(at+d), TOTPDigits)), []byte(code))
		step = int64(subtle.ConstantTimeSelect(match, int(at+d), int(step)))
		ok = ok || match == 1
	}
	return step, ok
}

// TOTPStep is the RFC 6238 counter of t: whole TOTPPeriods since the epoch.
func TOTPStep(t time.Time) int64 { return int64(totpStep(t)) }

// totpStep is the RFC 6238 counter of t: whole periods since the epoch.
func totpStep(t time.Time) uint64 {
	return uint64(t.Unix()) / uint64(TOTPPeriod/time.Second)
}

// hotp is RFC 4226's code of key for counter, digits long (HMAC-SHA-1,
// dynamic truncation).
func hotp(key []byte, counter uint64, digits int) string {
	mac := hmac.New(sha1.New, key)
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	s := strconv.FormatUint(uint64(v%mod), 10)
	return strings.Repeat("0", digits-len(s)) + s
}

// TOTPURI is the otpauth:// URI an authenticator app reads (from the QR
// code QRCodeSVG draws): the account labelled "issuer:email".
func TOTPURI(issuer, email, secret string) string {
	q := url.Values{}
	q.Set("secret", secret)
	q.Set("issuer", issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", strconv.Itoa(TOTPDigits))
	q.Set("period", strconv.Itoa(int(TOTPPeriod/time.Second)))
	return "otpauth://totp/" + url.PathEscape(issuer) + ":" + url.PathEscape(email) + "?" + q.Encode()
}

// qrQuiet is the margin of light modules a QR code needs around it.
const qrQuiet = 4

// QRCodeSVG draws text (a TOTPURI) as a QR code in SVG: one <path> of the
// dark modules on a light square, with title as its accessible name. The
// result is a complete <svg> element, safe to put in a page as it is
// (title is escaped). It scales to its container; the page sets the size.
func QRCodeSVG(text, title string) (string, error) {
	code, err := qr.Encode(text, qr.M)
	if err != nil {
		return "", fmt.Errorf("QR code: %w", err)
	}
	n := code.Size + 2*qrQuiet
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<title>%s</title><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, html.EscapeString(title), n, n)
	for y := range code.Size {
		for x := 0; x < code.Size; {
			if !code.Black(x, y) {
				x++
				continue
			}
			run := 1
			for code.Black(x+run, y) {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+qrQuiet, y+qrQuiet, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
