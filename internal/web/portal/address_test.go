package portal_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/web/areatest"
)

// TestOneAccountPerAddress: an address is one account however its local
// part's case is spelled, so an operator's Disable is not sidestepped by
// spelling it another way, and its sign-in limits are the address's; dots
// and +tags are other addresses, as a mailbox provider may have them.
func TestOneAccountPerAddress(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	e.signIn("bob@example.com")
	e.signIn("Bob@Example.com")
	e.signIn("BOB@EXAMPLE.COM")
	e.signIn("b.ob@example.com")
	e.signIn("bob+x@example.com")
	if n := len(e.accounts()); n != 3 {
		t.Fatalf("%d accounts, want 3: bob, b.ob and bob+x", n)
	}
	if _, err := e.Store.SetAccountDisabled(t.Context(), 1, true); err != nil {
		t.Fatal(err)
	}
	e.Clock.Add(time.Minute)
	rec := e.useLink(e.askLink("Bob@example.com"))
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "This account is disabled") {
		t.Errorf("a disabled account's address spelled otherwise = %d", rec.Code)
	}
	// One link a minute per address, however spelled.
	e.Clock.Add(time.Minute)
	e.askLink("bob@example.com")
	if rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {"BoB@example.com"}}, ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a second link in the minute, spelled otherwise = %d", rec.Code)
	}
}

// accounts is every stored account.
func (e *env) accounts() []int64 {
	e.T.Helper()
	as, err := e.Store.ListAccounts(e.T.Context())
	if err != nil {
		e.T.Fatal(err)
	}
	var ids []int64
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

// TestFormsRefuseWhatIsNotText: a domain literal is not an address the
// portal mails, and a field that is not UTF-8 is refused with its form's
// error; nothing is stored.
func TestFormsRefuseWhatIsNotText(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	for _, bad := range []string{"a@[127.0.0.1]", "a@[IPv6:::1]", "d\xffv@example.com", "dev@exa\xfe.com"} {
		rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {bad}}, "")
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Type one email address") {
			t.Errorf("a link for %q = %d", bad, rec.Code)
		}
	}
	if e.mail.count() != 0 {
		t.Fatalf("%d links were mailed", e.mail.count())
	}
	s := e.signIn("dev@example.com")
	_, prefix := e.createKey(s, url.Values{"name": {"K"}, "kind": {"server"}})
	for _, tc := range []struct {
		path string
		form url.Values
		want string
	}{
		{"/developer/keys", url.Values{"name": {"K\xff"}, "kind": {"server"}}, "at most 80 characters"},
		{"/developer/keys", url.Values{"name": {"K"}, "kind": {"browser"}, "origins": {"https://a\xff.example"}}, "is not an origin"},
		{"/developer/keys/" + prefix + "/tier", url.Values{"tier": {"pro"}, "use_case": {"a \xc3 shop"}}, "Say what you will use the data for"},
		{"/developer/keys/" + prefix + "/tier", url.Values{"tier": {"pro"}, "use_case": {"a shop"}, "volume": {"\xed\xa0\x80"}}, "Say what you will use the data for"},
		{"/developer/account/delete", url.Values{"confirm": {"dev@example.com\xff"}}, "to confirm"},
	} {
		rec := e.Do("POST", tc.path, tc.form, s)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("POST %s %q = %d, want 422 saying %q", tc.path, tc.form.Encode(), rec.Code, tc.want)
		}
	}
	if len(e.Keys()) != 1 || len(e.Requests()) != 0 || e.Account(1).Deleted() {
		t.Error("a refused form stored something")
	}
}

// TestNoDayLongLockout: whoever asks for links to an address they do not
// own, from however many networks, keeps its owner from a new link for
// at most an hour, and the owner's mailbox gets at most a few an hour.
func TestNoDayLongLockout(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	for i := range 30 {
		e.IP = fmt.Sprintf("198.51.100.%d", i+1)
		rec := e.Do("POST", "/developer/signin/link", url.Values{"email": {"victim@example.com"}}, "")
		switch rec.Code {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			wait, err := strconv.Atoi(rec.Header().Get("Retry-After"))
			if err != nil || wait < 1 || wait > 3600 {
				t.Fatalf("ask %d: Retry-After %q, want at most an hour", i, rec.Header().Get("Retry-After"))
			}
			areatest.MustContain(t, "the per-address 429", rec.Body.String(), "Use the newest link you received")
		default:
			t.Fatalf("ask %d = %d", i, rec.Code)
		}
		e.Clock.Add(time.Minute)
	}
	if n := e.mail.count(); n > 5 {
		t.Errorf("the mailbox got %d links in half an hour, want at most 5", n)
	}
	e.Clock.Add(time.Hour)
	e.IP = "192.0.2.99"
	e.askLink("victim@example.com")
}

// TestConfirmationNamesTheAccount: the page a link opens names the
// address it signs into, so a link someone else sent is not followed
// blindly; a used or unknown link says it does not work.
func TestConfirmationNamesTheAccount(t *testing.T) {
	e := newEnv(t, httpBase, nil)
	token := e.askLink("Dev@Example.com")
	rec := e.Do("GET", "/developer/signin?token="+token, nil, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("the link's page = %d", rec.Code)
	}
	areatest.MustContain(t, "the link's page", rec.Body.String(), "<strong>Dev@example.com</strong>", "not your address")
	e.useLink(token)
	if rec := e.Do("GET", "/developer/signin?token="+token, nil, ""); rec.Code != http.StatusGone {
		t.Errorf("the page of a used link = %d", rec.Code)
	}
}
