// Command soak drives a running (or self-started) fragrance service with a
// realistic mix of traffic for a long time and checks that it stays
// healthy: resident memory, goroutines and open file descriptors flat, and
// not one 5xx answer.
//
// The mix, at -rate requests per second in all (default: half the
// capacity measured in a 10 s closed-loop probe first):
//
//   - normal API traffic on a key whose limits never bind: lists, details,
//     search, similar, dupes, match, brands, notes;
//   - keys at their limits: free keys asked far more often than 60 a
//     minute, so most answers are the contract's 429;
//   - floods of bad keys: malformed ones and well-formed unknown ones, from
//     many client addresses (X-Forwarded-For: a server given with -addr
//     must trust 127.0.0.1 as a proxy), or from the one shared address
//     with -nat;
//   - image misses: random numeric ids on the image host;
//   - slow clients: -slow connections that send their request headers a
//     byte at a time and never finish them (slowloris), reopened when the
//     server drops them.
//
// Every -sample interval it reads the server's resident memory and open
// descriptors from /proc/PID and its goroutines from the metrics endpoint,
// and prints a row. At the end it compares the median of the last quarter
// of the samples with that of the second quarter and fails (exit 1) when
// one grew beyond its tolerance or any answer was a 5xx.
//
// Without -addr it builds nothing itself but starts -bin (default: a
// binary built from ./cmd/fragrance into a temporary directory) on a new
// SQLite database with the small test catalogue, creates the keys it needs
// and stops the server at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// config is what the flags set.
type config struct {
	addr, metricsURL, metricsToken string
	pid                            int
	bin, catalogue                 string
	key, limitedKeys               string
	duration, sample               time.Duration
	rate                           float64
	slow                           int
	nat                            bool
	rssTol, goroutineTol, fdTol    float64
	workers                        int
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	fs.StringVar(&c.addr, "addr", "", "base URL of a running service (e.g. http://127.0.0.1:8080); empty: start one")
	fs.IntVar(&c.pid, "pid", 0, "with -addr: the server's process id, for /proc/PID (resident memory, descriptors)")
	fs.StringVar(&c.key, "key", "", "with -addr: an API key whose limits never bind at -rate")
	fs.StringVar(&c.limitedKeys, "limited-keys", "", "with -addr: comma-separated keys of a small tier, to keep at their limits")
	fs.StringVar(&c.metricsURL, "metrics", "", "Prometheus metrics URL for go_goroutines (default ADDR/metrics)")
	fs.StringVar(&c.metricsToken, "metrics-token", "", "bearer token for -metrics, when it asks for one")
	fs.StringVar(&c.bin, "bin", "", "without -addr: the fragrance binary to start (default: go build ./cmd/fragrance)")
	fs.StringVar(&c.catalogue, "catalogue", "cmd/fragrance/testdata/catalogue-small.jsonl.gz", "without -addr: the catalogue of the new database")
	fs.DurationVar(&c.duration, "duration", 30*time.Minute, "how long to soak")
	fs.DurationVar(&c.sample, "sample", 5*time.Second, "how often to sample the server")
	fs.Float64Var(&c.rate, "rate", 0, "requests per second in all (0: half the capacity measured first)")
	fs.IntVar(&c.slow, "slow", 20, "slow clients held open at once")
	fs.BoolVar(&c.nat, "nat", false, "send the bad keys from the same address as the good traffic (one NAT), not from many")
	fs.Float64Var(&c.rssTol, "rss-tolerance", 0.25, "largest allowed growth of resident memory, second quarter to last")
	fs.Float64Var(&c.goroutineTol, "goroutine-tolerance", 0.5, "largest allowed growth of goroutines (plus 20)")
	fs.Float64Var(&c.fdTol, "fd-tolerance", 0.5, "largest allowed growth of open descriptors (plus 20)")
	fs.IntVar(&c.workers, "workers", 64, "concurrent requests at most")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.addr != "" && (c.pid <= 0 || c.key == "") {
		return nil, fmt.Errorf("-addr needs -pid (to read /proc/PID) and -key")
	}
	if c.duration < 4*c.sample {
		return nil, fmt.Errorf("-duration %s is too short: at least four -sample intervals (%s)", c.duration, 4*c.sample)
	}
	if c.rate < 0 || c.slow < 0 || c.workers < 1 {
		return nil, fmt.Errorf("-rate and -slow must not be negative, -workers at least 1")
	}
	return c, nil
}

// run soaks and returns an error when a check failed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	tgt := target{base: c.addr, pid: c.pid, key: c.key, metricsToken: c.metricsToken}
	if c.limitedKeys != "" {
		tgt.limited = splitComma(c.limitedKeys)
	}
	if c.addr == "" {
		srv, err := startServer(ctx, c, stderr)
		if err != nil {
			return err
		}
		defer srv.stop(stderr)
		tgt = srv.target
	}
	tgt.metricsURL = c.metricsURL
	if tgt.metricsURL == "" {
		tgt.metricsURL = tgt.base + "/metrics"
	}
	res, err := soak(ctx, c, tgt, stdout)
	if err != nil {
		return err
	}
	return res.verdict(c, stdout)
}
