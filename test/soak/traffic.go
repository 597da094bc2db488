package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// kind is one class of the mix.
type kind int

const (
	normal  kind = iota // the API on a key whose limits never bind
	limited             // free keys beyond their limits
	badKey              // malformed and unknown keys
	image               // image misses
	kinds
)

var kindNames = [kinds]string{"normal", "limited", "bad key", "image miss"}

// weights of the mix, in percent.
var weights = [kinds]int{normal: 60, limited: 10, badKey: 20, image: 10}

// counts is what one interval (or the whole soak) saw.
type counts struct {
	byKind      [kinds]map[int]int64 // status → answers
	transport   int64                // requests with no answer (refused, reset, timeout)
	behind      int64                // requests not sent: every worker busy
	latencies   []time.Duration      // normal traffic
	limitedOK   map[string]int64     // 200s per limited key
	slowMax     time.Duration        // longest a slow client was kept open
	slowClosed  int64                // slow clients the server dropped
	normal429   int64                // 429s on the unlimited key (a valid key refused)
	badAdmitted int64                // 2xx on a bad key (authentication open)
}

func newCounts() *counts {
	c := &counts{limitedOK: map[string]int64{}}
	for k := range c.byKind {
		c.byKind[k] = map[int]int64{}
	}
	return c
}

func (c *counts) add(o *counts) {
	for k := range c.byKind {
		for s, n := range o.byKind[k] {
			c.byKind[k][s] += n
		}
	}
	c.transport += o.transport
	c.behind += o.behind
	for k, n := range o.limitedOK {
		c.limitedOK[k] += n
	}
	c.slowMax = max(c.slowMax, o.slowMax)
	c.slowClosed += o.slowClosed
	c.normal429 += o.normal429
	c.badAdmitted += o.badAdmitted
}

func (c *counts) total() int64 {
	var n int64
	for k := range c.byKind {
		for _, v := range c.byKind[k] {
			n += v
		}
	}
	return n
}

func (c *counts) fivexx() int64 {
	var n int64
	for k := range c.byKind {
		for s, v := range c.byKind[k] {
			if s >= 500 {
				n += v
			}
		}
	}
	return n
}

// quantile of sorted durations.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// driver sends the mix and gathers counts.
type driver struct {
	tgt     target
	nat     bool
	client  *http.Client
	paths   []string // normal traffic
	images  []string // image URLs of listed perfumes
	unknown []string // well-formed keys no store has

	mu  sync.Mutex
	cur *counts
}

func newDriver(ctx context.Context, tgt target, nat bool, workers int) (*driver, error) {
	d := &driver{tgt: tgt, nat: nat, cur: newCounts(), client: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers},
	}}
	slugs, err := d.slugs(ctx)
	if err != nil {
		return nil, err
	}
	words := []string{"dior", "rose", "vanilla", "oud", "sauvage", "chanel", "tobacco van", "blue", "amber", "citrus"}
	accords := []string{"woody", "sweet", "citrus", "vanilla", "floral", "fresh spicy", "amber", "musky"}
	for _, s := range slugs {
		d.paths = append(d.paths, "/api/perfumes/"+s, "/api/perfumes/"+s+"/similar", "/api/perfumes/"+s+"/dupes")
	}
	for p := 1; p <= 5; p++ {
		d.paths = append(d.paths, fmt.Sprintf("/api/perfumes?page=%d&limit=20", p))
	}
	for _, w := range words {
		d.paths = append(d.paths, "/api/perfumes?q="+url.QueryEscape(w), "/api/brands?q="+url.QueryEscape(w[:3]))
	}
	for _, a := range accords {
		d.paths = append(d.paths, "/api/perfumes/match?accords="+url.QueryEscape(a)+"&gender=unisex")
	}
	d.paths = append(d.paths, "/api/brands", "/api/notes", "/api/accords", "/api/perfumers")
	for i := 0; i < 50; i++ {
		k, err := apikey.GenerateKey()
		if err != nil {
			return nil, err
		}
		d.unknown = append(d.unknown, k)
	}
	return d, nil
}

// slugs reads perfume ids from the first list pages.
func (d *driver) slugs(ctx context.Context) ([]string, error) {
	var out []string
	for p := 1; p <= 3; p++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/perfumes?page=%d&limit=100", d.tgt.base, p), nil)
		req.Header.Set("X-API-Key", d.tgt.key)
		resp, err := d.client.Do(req)
		if err != nil {
			return nil, err
		}
		var body struct {
			Data []struct {
				ID    string `json:"id"`
				Image string `json:"image"`
			} `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			return nil, fmt.Errorf("list perfumes with -key: %d %v", resp.StatusCode, err)
		}
		for _, it := range body.Data {
			out = append(out, it.ID)
			if it.Image != "" {
				d.images = append(d.images, it.Image)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the catalogue lists no perfumes")
	}
	return out, nil
}

// pick chooses a kind by the weights (limited only when there are keys).
func (d *driver) pick(r *rand.Rand) kind {
	for {
		n := r.IntN(100)
		for k := kind(0); k < kinds; k++ {
			if n < weights[k] {
				if k == limited && len(d.tgt.limited) == 0 {
					break
				}
				return k
			}
			n -= weights[k]
		}
	}
}

// one sends one request of kind k and counts its answer.
func (d *driver) one(ctx context.Context, r *rand.Rand, k kind) {
	var u, key, forwarded string
	switch k {
	case normal:
		u, key = d.tgt.base+d.paths[r.IntN(len(d.paths))], d.tgt.key
	case limited:
		key = d.tgt.limited[r.IntN(len(d.tgt.limited))]
		u = d.tgt.base + d.paths[r.IntN(len(d.paths))]
	case badKey:
		u = d.tgt.base + d.paths[r.IntN(len(d.paths))]
		if r.IntN(2) == 0 {
			key = d.unknown[r.IntN(len(d.unknown))]
		} else {
			key = fmt.Sprintf("fds_%x", r.Uint64()) // malformed: too short, no checksum
		}
		if !d.nat {
			// A flood from many addresses (a trusted proxy forwards them).
			forwarded = fmt.Sprintf("203.0.%d.%d", r.IntN(20), r.IntN(250)+1)
		}
	case image:
		// Half real perfumes' images (rendered once, then kept or not),
		// half random ids (a scan for ids never seen).
		if r.IntN(2) == 0 && len(d.images) > 0 {
			u = d.images[r.IntN(len(d.images))]
		} else {
			u = fmt.Sprintf("%s/img/perfume/%d.jpg", d.tgt.base, r.IntN(200_000)+1)
		}
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if forwarded != "" {
		req.Header.Set("X-Forwarded-For", forwarded)
	}
	start := time.Now()
	resp, err := d.client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	took := time.Since(start)
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.cur
	if err != nil {
		if ctx.Err() == nil {
			c.transport++
		}
		return
	}
	c.byKind[k][resp.StatusCode]++
	switch {
	case k == normal:
		c.latencies = append(c.latencies, took)
		if resp.StatusCode == http.StatusTooManyRequests {
			c.normal429++
		}
	case k == limited && resp.StatusCode == http.StatusOK:
		c.limitedOK[key[:min(len(key), 12)]]++
	case k == badKey && resp.StatusCode < 300:
		c.badAdmitted++
	}
}

// take returns the counts so far and starts new ones.
func (d *driver) take() *counts {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.cur
	d.cur = newCounts()
	sort.Slice(c.latencies, func(i, j int) bool { return c.latencies[i] < c.latencies[j] })
	return c
}

// paced sends the mix at rate requests per second with at most workers in
// flight until ctx ends. A tick finding every worker busy counts the
// requests it could not send (the client, not the server, fell behind).
func (d *driver) paced(ctx context.Context, rate float64, workers int) {
	jobs := make(chan kind, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, seed*7+1))
			for k := range jobs {
				d.one(ctx, r, k)
			}
		}(uint64(w) + 1)
	}
	r := rand.New(rand.NewPCG(42, 43))
	const tick = 10 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	var owed float64
	last := time.Now()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-t.C:
		}
		// From the clock, not the tick count: a busy machine drops ticks.
		now := time.Now()
		owed += rate * now.Sub(last).Seconds()
		last = now
		for ; owed >= 1; owed-- {
			select {
			case jobs <- d.pick(r):
			default:
				d.mu.Lock()
				d.cur.behind++
				d.mu.Unlock()
			}
		}
	}
	close(jobs)
	wg.Wait()
}

// capacity measures the normal traffic's closed-loop request rate with
// workers clients for dur.
func (d *driver) capacity(ctx context.Context, workers int, dur time.Duration) float64 {
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 9))
			for ctx.Err() == nil {
				d.one(ctx, r, normal)
				n.Add(1)
			}
		}(uint64(w) + 100)
	}
	wg.Wait()
	d.take() // the probe is not part of the soak
	return float64(n.Load()) / dur.Seconds()
}

// slowClients keeps n connections sending a request's headers a byte at a
// time, never finishing them; each is reopened when the server drops it.
func (d *driver) slowClients(ctx context.Context, n int) {
	host := strings.TrimPrefix(strings.TrimPrefix(d.tgt.base, "http://"), "https://")
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				d.slowOnce(ctx, host)
			}
		}()
	}
	wg.Wait()
}

func (d *driver) slowOnce(ctx context.Context, host string) {
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		return
	}
	defer conn.Close()
	start := time.Now()
	msg := "GET /api/perfumes HTTP/1.1\r\nHost: " + host + "\r\nX-Slow: "
	for i := 0; ctx.Err() == nil; i++ {
		b := "a"
		if i < len(msg) {
			b = msg[i : i+1]
		}
		conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Write([]byte(b)); err != nil {
			break
		}
		// A dropped connection shows on a read sooner than on a write.
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		var buf [512]byte
		n, err := conn.Read(buf[:])
		if n > 0 {
			break // the server answered (408, 400): it is done with us
		}
		if ne, ok := err.(net.Error); err != nil && (!ok || !ne.Timeout()) {
			break
		}
	}
	if ctx.Err() != nil {
		return
	}
	d.mu.Lock()
	d.cur.slowClosed++
	d.cur.slowMax = max(d.cur.slowMax, time.Since(start))
	d.mu.Unlock()
}
