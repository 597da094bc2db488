package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestSoakShort is the CI's two-minute soak: the mix at a fixed, modest
// rate (CI machines vary too much for "half the capacity" to mean the
// same load twice), the same checks as the 30-minute run. It builds and
// starts the binary itself.
func TestSoakShort(t *testing.T) {
	if os.Getenv("FRAGRANCE_TEST_SOAK") != "1" {
		t.Skip("set FRAGRANCE_TEST_SOAK=1 to run the two-minute soak (it builds and drives the binary)")
	}
	var out, errb strings.Builder
	err := run(context.Background(), []string{"-duration", "2m", "-sample", "5s", "-rate", "300", "-slow", "10"}, &out, &errb)
	t.Log("\n" + out.String() + errb.String())
	if err != nil {
		t.Fatal(err)
	}
}

// TestFlags: the flag checks that keep a long run from starting wrong.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-addr", "http://127.0.0.1:1"},       // no -pid, no -key
		{"-duration", "10s", "-sample", "5s"}, // fewer than four samples
		{"-rate", "-1"},                       // negative rate
		{"extra"},                             // stray argument
		{"-addr", "http://x", "-pid", "1"},    // no -key
	} {
		if _, err := parseFlags(args, &strings.Builder{}); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if _, err := parseFlags([]string{"-duration", "1m", "-rate", "100"}, &strings.Builder{}); err != nil {
		t.Errorf("good flags refused: %v", err)
	}
}

// samples makes n samples whose resident memory, goroutines and
// descriptors follow f, each interval with 100 answers 200.
func samples(n int, f func(i int) (rss, gor, fds int64)) []sample {
	out := make([]sample, n)
	for i := range out {
		c := newCounts()
		c.byKind[normal][200] = 100
		out[i].rssKB, out[i].goroutines, out[i].fds = f(i)
		out[i].c = c
	}
	return out
}

func verdictOf(ss []sample, extra func(*counts)) error {
	all := newCounts()
	for _, s := range ss {
		all.add(s.c)
	}
	if extra != nil {
		extra(all)
	}
	c, _ := parseFlags([]string{"-slow", "0"}, &strings.Builder{})
	return (&result{rate: 100, samples: ss, all: all}).verdict(c, &strings.Builder{})
}

// TestVerdict: flat resources pass; a leak in any of them, a 5xx, a bad
// key admitted or a valid key refused fails, naming what.
func TestVerdict(t *testing.T) {
	flat := func(i int) (int64, int64, int64) { return 100_000 + int64(i%3)*1000, 40, 30 }
	if err := verdictOf(samples(16, flat), nil); err != nil {
		t.Errorf("flat: %v", err)
	}
	// Warm-up growth in the first quarter is not a leak.
	warm := func(i int) (int64, int64, int64) { return 50_000 + min(int64(i), 4)*20_000, 40, 30 }
	if err := verdictOf(samples(16, warm), nil); err != nil {
		t.Errorf("warm-up: %v", err)
	}
	for name, c := range map[string]struct {
		f     func(i int) (int64, int64, int64)
		extra func(*counts)
		want  string
	}{
		"rss":        {func(i int) (int64, int64, int64) { return 100_000 + int64(i)*10_000, 40, 30 }, nil, "RSS"},
		"goroutines": {func(i int) (int64, int64, int64) { return 100_000, 40 + int64(i)*10, 30 }, nil, "goroutines"},
		"fds":        {func(i int) (int64, int64, int64) { return 100_000, 40, 30 + int64(i)*10 }, nil, "fds"},
		"5xx":        {flat, func(c *counts) { c.byKind[image][503] = 1 }, "5xx"},
		"bad key":    {flat, func(c *counts) { c.badAdmitted = 1 }, "bad keys"},
		"valid 429":  {flat, func(c *counts) { c.normal429 = 3 }, "valid key"},
		"no answer":  {flat, func(c *counts) { c.transport = 2 }, "no answer"},
	} {
		err := verdictOf(samples(16, c.f), c.extra)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: verdict %v, want an error naming %q", name, err, c.want)
		}
	}
}
