package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// sample is the server's state at one moment, and the traffic of the
// interval before it.
type sample struct {
	at         time.Duration // since the soak began
	rssKB      int64
	goroutines int64
	fds        int64
	c          *counts
}

// result is a whole soak.
type result struct {
	rate    float64
	samples []sample
	all     *counts
	errs    []string // sampling failures
}

// soak runs the mix for c.duration and samples the server.
func soak(ctx context.Context, c *config, tgt target, stdout io.Writer) (*result, error) {
	d, err := newDriver(ctx, tgt, c.nat, c.workers)
	if err != nil {
		return nil, err
	}
	rate := c.rate
	if rate == 0 {
		capacity := d.capacity(ctx, 16, 10*time.Second)
		rate = capacity / 2
		fmt.Fprintf(stdout, "capacity (normal traffic, 16 closed-loop clients, 10 s): %.0f req/s; soaking at half: %.0f req/s\n", capacity, rate)
	}
	res := &result{rate: rate, all: newCounts()}
	fmt.Fprintf(stdout, "soak: %s at %.0f req/s (mix %v%% of %v), %d slow clients, bad keys from %s\n",
		c.duration, rate, weights, kindNames, c.slow, map[bool]string{true: "the same address (-nat)", false: "many addresses"}[c.nat])
	sctx, cancel := context.WithTimeout(ctx, c.duration+c.sample/4) // the last tick comes first
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); d.paced(sctx, rate, c.workers) }()
	go func() { defer wg.Done(); d.slowClients(sctx, c.slow) }()

	fmt.Fprintf(stdout, rowFormat, "t", "req/s", "2xx-3xx", "401", "429", "other 4xx", "5xx", "no answer", "behind", "p50 ms", "p99 ms", "RSS MB", "goroutines", "fds")
	start := time.Now()
	t := time.NewTicker(c.sample)
	defer t.Stop()
	for {
		select {
		case <-sctx.Done():
		case <-t.C:
		}
		if sctx.Err() != nil {
			// The requests still in flight belong to the last row; the
			// server is not sampled again once the load has stopped.
			wg.Wait()
			left := d.take()
			res.all.add(left)
			if n := len(res.samples); n > 0 {
				res.samples[n-1].c.add(left)
			}
			break
		}
		s := sample{at: time.Since(start).Round(time.Second), c: d.take()}
		var err error
		if s.rssKB, s.fds, err = procStats(tgt.pid); err != nil {
			res.errs = append(res.errs, err.Error())
		}
		if s.goroutines, err = goroutines(tgt.metricsURL, tgt.metricsToken); err != nil {
			res.errs = append(res.errs, err.Error())
		}
		res.samples = append(res.samples, s)
		res.all.add(s.c)
		row(stdout, s, c.sample)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res, nil
}

// rowFormat is one line of the table, a sample every -sample.
const rowFormat = "%7v %6v %7v %6v %6v %9v %5v %9v %6v %6v %6v %6v %10v %5v\n"

func row(w io.Writer, s sample, interval time.Duration) {
	var ok, unauth, limited, other int64
	for k := range s.c.byKind {
		for st, n := range s.c.byKind[k] {
			switch {
			case st < 400:
				ok += n
			case st == http.StatusUnauthorized:
				unauth += n
			case st == http.StatusTooManyRequests:
				limited += n
			case st < 500:
				other += n
			}
		}
	}
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	fmt.Fprintf(w, rowFormat, s.at, fmt.Sprintf("%.0f", float64(s.c.total())/interval.Seconds()), ok, unauth, limited, other,
		s.c.fivexx(), s.c.transport, s.c.behind, f2(ms(quantile(s.c.latencies, 0.5))), f2(ms(quantile(s.c.latencies, 0.99))),
		fmt.Sprintf("%.1f", float64(s.rssKB)/1024), s.goroutines, s.fds)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// procStats reads resident memory (kB) and open descriptors of pid.
func procStats(pid int) (rssKB, fds int64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("server process %d: %w", pid, err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			rssKB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return rssKB, 0, fmt.Errorf("descriptors of %d: %w", pid, err)
	}
	return rssKB, int64(len(ents)), nil
}

// goroutines reads go_goroutines from a Prometheus text endpoint.
func goroutines(u, token string) (int64, error) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		return 0, fmt.Errorf("-metrics %q: %w", u, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("metrics %s: status %d (pass -metrics and -metrics-token when they are protected)", u, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("go_goroutines %q", v)
			}
			return int64(f), nil
		}
	}
	return 0, fmt.Errorf("metrics %s: no go_goroutines", u)
}

// median of one field over samples.
func median(ss []sample, f func(sample) int64) int64 {
	if len(ss) == 0 {
		return 0
	}
	v := make([]int64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}

// verdict prints the summary and returns an error naming every failed
// check.
func (r *result) verdict(c *config, w io.Writer) error {
	var fails []string
	n := len(r.samples)
	if n < 4 {
		return fmt.Errorf("only %d samples: too few to tell flat from growing", n)
	}
	// The first quarter holds the warm-up (caches filling, the heap
	// growing to its working size); the second is the baseline.
	q2, q4 := r.samples[n/4:n/2], r.samples[n-n/4:]
	checks := []struct {
		name  string
		f     func(sample) int64
		tol   float64
		slack int64
	}{
		{"RSS kB", func(s sample) int64 { return s.rssKB }, c.rssTol, 0},
		{"goroutines", func(s sample) int64 { return s.goroutines }, c.goroutineTol, 20},
		{"open fds", func(s sample) int64 { return s.fds }, c.fdTol, 20},
	}
	fmt.Fprintln(w, "\nflat? median of the second quarter against the last quarter:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tsecond quarter\tlast quarter\tgrowth\tallowed\t")
	for _, ch := range checks {
		a, b := median(q2, ch.f), median(q4, ch.f)
		growth := 0.0
		if a > 0 {
			growth = float64(b-a) / float64(a)
		}
		limit := float64(a)*(1+ch.tol) + float64(ch.slack)
		verdict := "ok"
		if float64(b) > limit {
			verdict = "GREW"
			fails = append(fails, fmt.Sprintf("%s grew from %d to %d (allowed %.0f)", ch.name, a, b, limit))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%+.1f%%\t%.0f%% +%d\t%s\n", ch.name, a, b, 100*growth, 100*ch.tol, ch.slack, verdict)
	}
	tw.Flush()

	all := r.all
	fmt.Fprintf(w, "\nanswers by class of traffic (status: count), %d in all, %.0f req/s asked:\n", all.total(), r.rate)
	for k := kind(0); k < kinds; k++ {
		fmt.Fprintf(w, "  %-10s %s\n", kindNames[k], statusList(all.byKind[k]))
	}
	fmt.Fprintf(w, "  no answer %d, not sent (client behind) %d; slow clients dropped by the server %d, the longest held %s\n",
		all.transport, all.behind, all.slowClosed, all.slowMax.Round(time.Second))
	if x := all.fivexx(); x > 0 {
		fails = append(fails, fmt.Sprintf("%d answers were 5xx", x))
	}
	if all.badAdmitted > 0 {
		fails = append(fails, fmt.Sprintf("%d requests with bad keys were admitted", all.badAdmitted))
	}
	if all.normal429 > 0 {
		fails = append(fails, fmt.Sprintf("%d requests with a valid key under its limits got 429 (another client's failures blocked it?)", all.normal429))
	}
	if all.transport > 0 {
		fails = append(fails, fmt.Sprintf("%d requests got no answer", all.transport))
	}
	minutes := r.samples[n-1].at.Minutes()
	for k, ok := range all.limitedOK {
		// Sliding windows: at most 60 in any minute, 1,000 in a day.
		if float64(ok) > 60*(minutes+1) || ok > 1000 {
			fails = append(fails, fmt.Sprintf("free key %s admitted %d times in %.1f minutes", k, ok, minutes))
		}
	}
	if c.slow > 0 && all.slowClosed == 0 {
		fails = append(fails, "no slow client was ever dropped: the server holds unfinished requests open for ever")
	}
	for _, e := range r.errs {
		fails = append(fails, "sampling: "+e)
	}
	if len(fails) > 0 {
		return fmt.Errorf("%d checks failed:\n  %s", len(fails), strings.Join(fails, "\n  "))
	}
	fmt.Fprintln(w, "\nsoak: ok")
	return nil
}

func statusList(m map[int]int64) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
