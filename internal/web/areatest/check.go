package areatest

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

var (
	cspNonceRE = regexp.MustCompile(`'nonce-([A-Za-z0-9_-]{22})'`)
	scriptRE   = regexp.MustCompile(`<script[^>]*>`)
	controlRE  = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idRE       = regexp.MustCompile(`\sid="([^"]+)"`)
	typeRE     = regexp.MustCompile(`\stype="([^"]+)"`)
	// SecretRE matches a whole API key.
	SecretRE = regexp.MustCompile(`fds_[0-9A-Za-z]{49}`)
)

// CheckPage holds an HTML answer to the ground's rules: the layout's
// landmarks, one h1, a CSP with a nonce on every script and no inline
// style, unique ids, a label for every form control; and to the areas':
// a whole key, or the dashboard's bar, only in an answer no cache keeps.
func CheckPage(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.String()
	m := cspNonceRE.FindStringSubmatch(rec.Header().Get("Content-Security-Policy"))
	if m == nil {
		t.Errorf("%s: no CSP nonce in %q", what, rec.Header().Get("Content-Security-Policy"))
		return
	}
	for _, s := range scriptRE.FindAllString(body, -1) {
		if !strings.Contains(s, `nonce="`+m[1]+`"`) {
			t.Errorf("%s: a script without the nonce: %s", what, s)
		}
	}
	if strings.Contains(body, " style=") || strings.Contains(body, "<style") {
		t.Errorf("%s: inline style", what)
	}
	if n := strings.Count(body, "<h1"); n != 1 {
		t.Errorf("%s: %d h1", what, n)
	}
	for _, want := range []string{`<html lang="en">`, `class="skip" href="#main"`, `<main id="main"`, `aria-label="Main"`, "<footer"} {
		if !strings.Contains(body, want) {
			t.Errorf("%s: the layout lacks %s", what, want)
		}
	}
	checkIDsAndLabels(t, what, body)
	kept := rec.Header().Get("Cache-Control") != "no-store"
	if kept && SecretRE.MatchString(body) {
		t.Errorf("%s: a key in an answer a cache may keep (Cache-Control %q)", what, rec.Header().Get("Cache-Control"))
	}
	if kept && strings.Contains(body, `class="adminbar"`) {
		t.Errorf("%s: a dashboard page a cache may keep (Cache-Control %q)", what, rec.Header().Get("Cache-Control"))
	}
}

// checkIDsAndLabels: no id twice, and a label for every form control that
// is not hidden (by its id, or around it).
func checkIDsAndLabels(t *testing.T, what, body string) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range idRE.FindAllStringSubmatch(body, -1) {
		if seen[id[1]] {
			t.Errorf("%s: id %q twice", what, id[1])
		}
		seen[id[1]] = true
	}
	for _, loc := range controlRE.FindAllStringIndex(body, -1) {
		tag := body[loc[0]:loc[1]]
		if tm := typeRE.FindStringSubmatch(tag); tm != nil && tm[1] == "hidden" {
			continue
		}
		if id := idRE.FindStringSubmatch(tag); id != nil && strings.Contains(body, `for="`+id[1]+`"`) {
			continue
		}
		if open := strings.LastIndex(body[:loc[0]], "<label"); open >= 0 && !strings.Contains(body[open:loc[0]], "</label>") {
			continue // a control inside its label
		}
		t.Errorf("%s: a form control without a label: %s", what, tag)
	}
}

// MustContain fails unless body holds every want.
func MustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}
