package session

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"
)

// A flash carries a value from the POST that made it to the one page that
// shows it (a new API key's secret, after the redirect that ends the
// form): in a cookie of its own, sealed (AES-GCM) with a key derived from
// the browser's session secret, which the server never stores. The server
// keeps nothing of it, so any replica can show it; only the browser that
// holds the session can read it, and the page that shows it drops it, so a
// reload finds none.
//
// FlashMaxAge bounds how long a flash waits for its page: the redirect
// follows at once.
const FlashMaxAge = 5 * time.Minute

// maxFlash bounds a flash's value: browsers keep cookies up to 4 kB.
const maxFlash = 2048

// errNoSession reports a flash set on a request that carries no session:
// nothing could read it back.
var errNoSession = errors.New("session: a flash needs a signed-in session")

// flashName is the flash cookie's name: "__Host-" + name over https (which
// makes its path "/").
func (a *Area[V]) flashName(name string) string {
	if a.secure {
		return securePrefix + name
	}
	return name
}

// flashCookie is the flash cookie name with value at path, kept maxAge
// seconds (-1: drop it now).
func (a *Area[V]) flashCookie(name, path, value string, maxAge int) *http.Cookie {
	if a.secure {
		path = "/"
	}
	return &http.Cookie{Name: a.flashName(name), Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteLaxMode}
}

// flashAEAD is the cipher of the flash name under the session secret.
func flashAEAD(secret, name string) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "fragrance session flash "+name, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// SetFlash sets the flash cookie name, sent back to the pages under path,
// holding value sealed for the session of r. It fails when r carries no
// session cookie or value is too long; nothing is set then.
func (a *Area[V]) SetFlash(w http.ResponseWriter, r *http.Request, name, path string, value []byte) error {
	secret, ok := a.secret(r)
	if !ok {
		return errNoSession
	}
	if len(value) > maxFlash {
		return errors.New("session: a flash holds at most 2 kB")
	}
	aead, err := flashAEAD(secret, name)
	if err != nil {
		return err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := aead.Seal(nonce, nonce, value, []byte(name))
	http.SetCookie(w, a.flashCookie(name, path, base64.RawURLEncoding.EncodeToString(sealed), int(FlashMaxAge/time.Second)))
	return nil
}

// TakeFlash returns the value of the flash cookie name (set for path) that
// r carries, and tells the browser to drop the cookie: a flash is read
// once. ok is false when there is none, or it does not open with the
// session of r (made for another session, or altered).
func (a *Area[V]) TakeFlash(w http.ResponseWriter, r *http.Request, name, path string) (value []byte, ok bool) {
	c, err := r.Cookie(a.flashName(name))
	if err != nil {
		return nil, false
	}
	http.SetCookie(w, a.flashCookie(name, path, "", -1))
	secret, ok := a.secret(r)
	if !ok {
		return nil, false
	}
	// Strict: a cookie spelled other than as SetFlash wrote it (spare bits
	// set in its last character) is refused, not read as the same bytes.
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(c.Value)
	if err != nil {
		return nil, false
	}
	aead, err := flashAEAD(secret, name)
	if err != nil || len(sealed) < aead.NonceSize() {
		return nil, false
	}
	value, err = aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(name))
	return value, err == nil
}
