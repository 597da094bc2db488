package server

import (
	"context"
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
)

// TestRequestStateContext: the request's state is its context: it answers
// its own two keys, passes every other key and the cancellation through
// to the parent, and keeps working under contexts derived from it.
func TestRequestStateContext(t *testing.T) {
	type otherKey struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "parent's"))
	st := &requestState{Context: parent, info: requestInfo{id: "abc"}}
	var ctx context.Context = st
	if got := infoFrom(ctx); got != &st.info || infoFrom(ctx).id != "abc" {
		t.Fatalf("infoFrom = %p, want %p", got, &st.info)
	}
	if got, _ := ctx.Value(access.LogInfoKey).(*access.LogInfo); got != &st.log {
		t.Fatalf("LogInfo = %p, want %p", got, &st.log)
	}
	if got := ctx.Value(otherKey{}); got != "parent's" {
		t.Fatalf("parent's value = %v", got)
	}
	if got := ctx.Value([]int(nil) == nil); got != nil { // any comparable key of another type
		t.Fatalf("unknown key = %v", got)
	}
	child, stop := context.WithCancel(ctx)
	defer stop()
	if infoFrom(child).id != "abc" {
		t.Fatal("a derived context lost the request id")
	}
	cancel()
	<-child.Done()
	if ctx.Err() == nil {
		t.Fatal("the parent's cancellation did not reach the request's context")
	}
}

// TestAccessLogHidesSignInTokens: a sign-in link's token never reaches the
// access log (an unused link signs its holder in).
func TestAccessLogHidesSignInTokens(t *testing.T) {
	for raw, want := range map[string]string{
		"token=abc":           "token=REDACTED",
		"a=1&token=abc&b=2":   "a=1&token=REDACTED&b=2",
		"tokens=abc&token=":   "tokens=abc&token=REDACTED",
		"q=token":             "q=token",
		"":                    "",
		"token=abc&token=def": "token=REDACTED&token=REDACTED",
	} {
		if got := redactToken(raw); got != want {
			t.Errorf("redactToken(%q) = %q, want %q", raw, got, want)
		}
	}
}
