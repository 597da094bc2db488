package session_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/account"
)

// A flash is read back once, by the session it was sealed for: the cookie
// holds no plain text, another session or an altered cookie opens
// nothing, and taking it tells the browser to drop it.
func TestFlashOpensOnceForItsSession(t *testing.T) {
	for _, tc := range []struct{ base, name, path string }{
		{"http://area.test", "newkey", "/area/keys"},
		{"https://area.test", "__Host-newkey", "/"},
	} {
		a := newArea(t, tc.base, &store{})
		mine, _ := account.NewSecret()
		theirs, _ := account.NewSecret()
		cookieName := "area"
		if tc.base[:5] == "https" {
			cookieName = "__Host-area"
		}
		req := func(session string, flash *http.Cookie) *http.Request {
			r := httptest.NewRequest("GET", "/area/keys/x", nil)
			if session != "" {
				r.AddCookie(&http.Cookie{Name: cookieName, Value: session})
			}
			if flash != nil {
				r.AddCookie(&http.Cookie{Name: flash.Name, Value: flash.Value})
			}
			return r
		}
		value := []byte("fds_the-new-key")
		set := httptest.NewRecorder()
		if err := a.SetFlash(set, req(mine, nil), "newkey", "/area/keys", value); err != nil {
			t.Fatal(err)
		}
		cs := set.Result().Cookies()
		if len(cs) != 1 || cs[0].Name != tc.name || cs[0].Path != tc.path || !cs[0].HttpOnly || cs[0].MaxAge != 300 ||
			bytes.Contains([]byte(cs[0].Value), value) || cs[0].Secure != (tc.base[:5] == "https") {
			t.Fatalf("%s: flash cookie %+v", tc.base, cs)
		}
		flash := cs[0]
		// altered flips one bit of the sealed bytes, so it never re-spells
		// the same cookie; respelled sets the spare bits of the last
		// character, which a lenient decoder would read as the same bytes.
		sealed, err := base64.RawURLEncoding.DecodeString(flash.Value)
		if err != nil {
			t.Fatal(err)
		}
		sealed[len(sealed)/2] ^= 1
		altered := base64.RawURLEncoding.EncodeToString(sealed)
		respelled := respell(flash.Value)

		for name, r := range map[string]*http.Request{
			"another session": req(theirs, flash),
			"no session":      req("", flash),
			"altered":         req(mine, &http.Cookie{Name: flash.Name, Value: altered}),
			"respelled":       req(mine, &http.Cookie{Name: flash.Name, Value: respelled}),
			"no flash":        req(mine, nil),
		} {
			if got, ok := a.TakeFlash(httptest.NewRecorder(), r, "newkey", "/area/keys"); ok || got != nil {
				t.Errorf("%s: %s opened the flash: %q", tc.base, name, got)
			}
		}
		take := httptest.NewRecorder()
		got, ok := a.TakeFlash(take, req(mine, flash), "newkey", "/area/keys")
		if !ok || !bytes.Equal(got, value) {
			t.Errorf("%s: TakeFlash = %q, %v", tc.base, got, ok)
		}
		if cs := take.Result().Cookies(); len(cs) != 1 || cs[0].Name != tc.name || cs[0].MaxAge >= 0 {
			t.Errorf("%s: taking the flash does not drop it: %+v", tc.base, cs)
		}
		if err := a.SetFlash(httptest.NewRecorder(), req("", nil), "newkey", "/area/keys", value); err == nil {
			t.Errorf("%s: a flash was set without a session", tc.base)
		}
	}
}

// respell returns s, a raw URL-safe base64 string whose length leaves
// spare bits in its last character, with those bits set: the same bytes to
// a lenient decoder, a different cookie to a strict one.
func respell(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	spare := map[int]int{2: 0b1111, 3: 0b11}[len(s)%4]
	if spare == 0 {
		panic("respell: no spare bits in a string of this length")
	}
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last|spare])
}
