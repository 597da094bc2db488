package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web/areatest"
	"github.com/fragrance-data/fragrance/internal/web/portal"
)

// keyRoutes are every route that names a key, with a form for the posts.
var keyRoutes = []struct {
	method, suffix string
	form           url.Values
}{
	{"GET", "", nil},
	{"GET", "/revoke", nil},
	{"POST", "/revoke", url.Values{}},
	{"POST", "/roll", url.Values{"grace": {"none"}}},
	{"POST", "/tier", url.Values{"tier": {"pro"}, "use_case": {"A shop"}, "volume": {"1,000 a day"}}},
}

// TestAnotherAccountsKey: every key route, asked with the prefix of a key
// of another account (or of no account, or not a prefix), answers 404 and
// leaves the key alone.
func TestAnotherAccountsKey(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	mine := e.signIn("me@example.com")
	e.createKey(mine, url.Values{"name": {"Mine"}, "kind": {"server"}})
	theirs := e.signIn("them@example.com")
	theirSecret, theirPrefix := e.createKey(theirs, url.Values{"name": {"Theirs"}, "kind": {"server"}})
	operator, _, err := apikey.Issue(context.Background(), e.Store, apikey.NewKey{Name: "ops", Tier: apikey.Pro})
	if err != nil {
		t.Fatal(err)
	}
	changed, keys := e.changed.Load(), len(e.Keys())
	for _, prefix := range []string{theirPrefix, operator.Prefix, "fds_zzzzzzzz", "fds_short", url.PathEscape(theirSecret)} {
		for _, r := range keyRoutes {
			rec := e.Do(r.method, "/developer/keys/"+prefix+r.suffix, r.form, mine)
			if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "Page not found") {
				t.Errorf("%s %s%s = %d", r.method, prefix, r.suffix, rec.Code)
			}
			if strings.Contains(rec.Body.String(), "Theirs") || strings.Contains(rec.Body.String(), "them@example.com") {
				t.Errorf("%s %s%s shows the other account's key", r.method, prefix, r.suffix)
			}
		}
	}
	if k := e.Key(theirPrefix); k.State != apikey.Active || !k.ExpiresAt.IsZero() {
		t.Errorf("the other account's key was changed: %+v", k)
	}
	if e.changed.Load() != changed || len(e.Keys()) != keys || len(e.Requests()) != 0 {
		t.Errorf("a 404 changed something: KeysChanged %d, keys %d, tier requests %d", e.changed.Load()-changed, len(e.Keys())-keys, len(e.Requests()))
	}
	// The owner reaches every route.
	for _, r := range keyRoutes {
		if rec := e.Do(r.method, "/developer/keys/"+theirPrefix+r.suffix, r.form, theirs); rec.Code == http.StatusNotFound {
			t.Errorf("the owner: %s %s = 404", r.method, r.suffix)
		}
	}
	// Without a session every route asks to sign in, whoever's the key.
	for _, r := range keyRoutes {
		rec := e.Do(r.method, "/developer/keys/"+theirPrefix+r.suffix, r.form, "")
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "Send sign-in link") {
			t.Errorf("no session: %s %s = %d", r.method, r.suffix, rec.Code)
		}
	}
}

// TestMaxKeys: an account holds at most MaxKeys live keys; a revoked key
// makes room, a rolled one only once it stops.
func TestMaxKeys(t *testing.T) {
	e := newEnv(t, httpBase, func(c *portal.Config) { c.MaxKeys = 2 })
	s := e.signIn("dev@example.com")
	_, first := e.createKey(s, url.Values{"name": {"One"}, "kind": {"server"}})
	_, second := e.createKey(s, url.Values{"name": {"Two"}, "kind": {"server"}})
	full := e.Do("POST", "/developer/keys", url.Values{"name": {"Three"}, "kind": {"server"}}, s)
	if full.Code != http.StatusUnprocessableEntity || areatest.SecretRE.MatchString(full.Body.String()) {
		t.Fatalf("a third key = %d", full.Code)
	}
	areatest.MustContain(t, "the refusal", full.Body.String(), "You have 2 live keys, the most an account may hold")
	areatest.MustContain(t, "the keys page when full", e.Do("GET", "/developer/keys", nil, s).Body.String(), "the most an account may hold")
	// Rolling replaces the key: at the maximum, only without a grace
	// period, since the rolled key counts until it stops.
	if rec := e.Do("POST", "/developer/keys/"+first+"/roll", url.Values{"grace": {"7d"}}, s); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a roll with a grace period at the maximum = %d", rec.Code)
	}
	if rec := e.Do("POST", "/developer/keys/"+first+"/roll", url.Values{"grace": {"none"}}, s); rec.Code != http.StatusSeeOther {
		t.Fatalf("a roll without a grace period at the maximum = %d", rec.Code)
	}
	if rec := e.Do("POST", "/developer/keys", url.Values{"name": {"Three"}, "kind": {"server"}}, s); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("a key after a roll at the maximum = %d", rec.Code)
	}
	e.Do("POST", "/developer/keys/"+second+"/revoke", url.Values{}, s)
	e.createKey(s, url.Values{"name": {"Three"}, "kind": {"server"}})
}

// TestKeyFormErrors: a key form that cannot be taken answers 422 with the
// reason and what was typed, and makes nothing.
func TestKeyFormErrors(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {""}, "kind": {"server"}}, "Name the key"},
		{url.Values{"name": {strings.Repeat("n", 81)}, "kind": {"server"}}, "at most 80 characters"},
		{url.Values{"name": {"a\x00b"}, "kind": {"server"}}, "at most 80 characters"},
		{url.Values{"name": {"K"}, "kind": {"other"}}, "Choose a server key or a browser key"},
		{url.Values{"name": {"K"}, "kind": {"browser"}}, "lists the origins allowed"},
		{url.Values{"name": {"K"}, "kind": {"browser"}, "origins": {"https://ok.example, example.com/path"}}, "“example.com/path” is not an origin"},
		{url.Values{"name": {"K"}, "kind": {"browser"}, "origins": {"ftp://files.example"}}, "is not an origin"},
		{url.Values{"name": {"K"}, "kind": {"browser"}, "origins": {"https://<script>.example"}}, "is not an origin"},
	} {
		rec := e.Do("POST", "/developer/keys", tc.form, s)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%v = %d, want 422 saying %q", tc.form, rec.Code, tc.want)
		}
		if strings.Contains(rec.Body.String(), "<script>.example") {
			t.Errorf("%v: the page repeats the input unescaped", tc.form)
		}
	}
	if len(e.Keys()) != 0 || e.changed.Load() != 0 {
		t.Errorf("refused forms made %d keys", len(e.Keys()))
	}
	if rec := e.Do("POST", "/developer/keys", nil, s); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("an empty post = %d", rec.Code)
	}
	if rec := e.Do("POST", "/developer/keys", url.Values{"name": {strings.Repeat("x", 70<<10)}}, s); rec.Code != http.StatusBadRequest {
		t.Errorf("a form over the bound = %d", rec.Code)
	}
}

// TestTierRequest: a request for a higher tier is stored pending and shown
// on the key's page; a second one waits; a lower tier or a missing use
// case is refused.
func TestTierRequest(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	s := e.signIn("dev@example.com")
	_, prefix := e.createKey(s, url.Values{"name": {"K"}, "kind": {"server"}})
	path := "/developer/keys/" + prefix + "/tier"
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"tier": {"free"}, "use_case": {"x"}}, "own (free)"},
		{url.Values{"tier": {"gold"}, "use_case": {"x"}}, "Choose a tier above"},
		{url.Values{"tier": {"pro"}, "use_case": {"  "}}, "Say what you will use the data for"},
		{url.Values{"tier": {"pro"}, "use_case": {strings.Repeat("u", account.MaxUseCase+1)}}, "at most 2,000 characters"},
	} {
		rec := e.Do("POST", path, tc.form, s)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%v = %d, want 422 saying %q", tc.form, rec.Code, tc.want)
		}
	}
	rec := e.Do("POST", path, url.Values{"tier": {"pro"}, "use_case": {"A perfume shop's search"}, "volume": {"20,000 a day"}}, s)
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/developer/keys/"+prefix+"#tier" {
		t.Fatalf("request = %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if rs := e.Requests(); len(rs) != 1 || rs[0].Tier != apikey.Pro || rs[0].KeyPrefix != prefix || rs[0].AccountID != 1 {
		t.Fatalf("stored %+v", rs)
	}
	areatest.MustContain(t, "the key's page with a request", e.Do("GET", "/developer/keys/"+prefix, nil, s).Body.String(), "pro tier, <strong>pending</strong>", "waiting for an answer")
	if rec := e.Do("POST", path, url.Values{"tier": {"enterprise"}, "use_case": {"More"}}, s); rec.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(rec.Body.String(), "waiting for an answer already") {
		t.Errorf("a second request = %d", rec.Code)
	}
	// A use case of the most characters, of a script percent-encoding
	// makes long, fits the form.
	_, second := e.createKey(s, url.Values{"name": {"K2"}, "kind": {"server"}})
	long := url.Values{"tier": {"basic"}, "use_case": {strings.Repeat("香", account.MaxUseCase)}, "volume": {strings.Repeat("量", account.MaxVolume)}}
	if rec := e.Do("POST", "/developer/keys/"+second+"/tier", long, s); rec.Code != http.StatusSeeOther {
		t.Errorf("a request of the longest texts = %d", rec.Code)
	}
	e.Store.DecideTierRequest(context.Background(), 1, account.Declined, "Tell us more about the shop.", e.Clock.Now())
	areatest.MustContain(t, "the key's page with a decision", e.Do("GET", "/developer/keys/"+prefix, nil, s).Body.String(),
		"<strong>declined</strong>: Tell us more about the shop.", "Request tier")
}
