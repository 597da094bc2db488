package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragrance-data/fragrance/internal/racedetect"
)

// TestEvalPrintsScores: eval dupes prints the dupes scores on the bundled
// catalogue, and only them.
func TestEvalPrintsScores(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("single-threaded work on the whole bundled catalogue; CI's plain pass (.ci/run, without -race) runs it")
	}
	out := runCmd(t, "eval", "--verbose", "dupes")
	for _, want := range []string{"Dupes:", "recall@10", "luxury → budget", "creed-aventus → armaf-club-de-nuit-intense-man"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval dupes output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Search:") {
		t.Error("eval dupes printed the search scores")
	}
}

func TestEvalUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	for _, tt := range []struct {
		args  []string
		usage bool
	}{
		{[]string{"eval", "bogus"}, true},
		{[]string{"eval", "search", "dupes"}, true},
		{[]string{"eval", "--db", missing}, false},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tt.args, noEnv, strings.NewReader(""), &out, &errb)
		if err == nil || errors.Is(err, errUsage) != tt.usage {
			t.Errorf("%q: err %v, want a usage error: %v", tt.args, err, tt.usage)
		}
	}
}
