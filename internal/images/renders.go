package images

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/fragrance-data/fragrance/internal/cpubudget"
)

// Drawing a product image costs 30–60 ms of CPU. A request for a perfume
// whose image is neither stored nor drawn yet (a miss) is therefore
// limited twice: per client IP (missLimiter, 429) and by a bounded pool
// that draws at most a few at once and queues a few more (renderPool, 503
// beyond), so that image misses never take the cores from the API. What is
// drawn is stored (imgstore.Render): each perfume is drawn once per drawing
// version, whoever asks.

// errRenderBusy refuses a miss the render pool has no room for (503).
var errRenderBusy = errors.New("the image renderer is busy")

// missError refuses a miss of a client that used its allowance (429).
type missError struct {
	wait time.Duration // until the client may miss again
}

func (e *missError) Error() string {
	return fmt.Sprintf("too many image misses from this client; next in %v", e.wait)
}

// renderPool draws at most slots images at once, within a CPU budget (a
// share of one core, as the background worker has: drawing on demand must
// not take a whole core from the API either), and lets at most queue more
// wait; requests beyond are refused at once. Requests for
// an image already being drawn wait for that drawing instead of joining the
// queue. A drawing, once started, finishes and is stored even when every
// request for it has gone.
type renderPool struct {
	slots    chan struct{}
	budget   *cpubudget.Budget // nil: no limit
	mu       sync.Mutex
	admitted int // drawings waiting for or holding a slot
	limit    int // slots + queue
	inflight map[int64]*flight
}

// flight is one drawing under way.
type flight struct {
	done chan struct{}
	img  servedImage
	err  error
}

// newRenderPool returns a pool of slots drawings at once and queue more
// waiting, using at most budget of one core (0: no limit).
func newRenderPool(slots, queue int, budget float64) *renderPool {
	rp := &renderPool{slots: make(chan struct{}, slots), limit: slots + queue, inflight: make(map[int64]*flight)}
	if budget > 0 {
		rp.budget = cpubudget.New(budget, time.Now, cpubudget.Sleep)
	}
	return rp
}

// start returns the drawing of id under way, or starts draw as a new one
// when admit (the client's miss allowance) lets it and the pool has room;
// errRenderBusy when it has none (the allowance is then spent all the
// same: a client flooding a busy host waits for it like everyone else).
func (rp *renderPool) start(id int64, admit func() error, draw func() (servedImage, error)) (f *flight, err error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if f := rp.inflight[id]; f != nil {
		return f, nil
	}
	if err := admit(); err != nil {
		return nil, err
	}
	if rp.admitted >= rp.limit {
		return nil, errRenderBusy
	}
	rp.admitted++
	f = &flight{done: make(chan struct{})}
	rp.inflight[id] = f
	go func() {
		rp.slots <- struct{}{}
		defer func() {
			<-rp.slots
			rp.mu.Lock()
			rp.admitted--
			delete(rp.inflight, id)
			rp.mu.Unlock()
			close(f.done)
		}()
		rp.budget.Wait(context.Background())
		start := time.Now()
		f.img, f.err = draw()
		rp.budget.Spend(time.Since(start))
	}()
	return f, nil
}

// wait waits for f, or for ctx (the client leaving).
func (f *flight) wait(ctx context.Context) (servedImage, error) {
	select {
	case <-f.done:
		return f.img, f.err
	case <-ctx.Done():
		return servedImage{}, ctx.Err()
	}
}

// missLimiter is a token bucket of image misses per client: burst misses
// at once, then perMinute a minute. IPv6 clients are counted by /64, the
// block one subscriber usually has. At most maxClients buckets are kept;
// full buckets (clients at rest) are dropped first, and when every kept
// client is busy a new one is refused until some rest.
type missLimiter struct {
	mu         sync.Mutex
	rate       float64 // tokens a second
	burst      float64
	maxClients int
	buckets    map[netip.Addr]*bucket
	now        func() time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newMissLimiter(perMinute, burst, maxClients int, now func() time.Time) *missLimiter {
	return &missLimiter{rate: float64(perMinute) / 60, burst: float64(burst), maxClients: maxClients,
		buckets: make(map[netip.Addr]*bucket), now: now}
}

// clientKey is the address misses are counted by.
func clientKey(a netip.Addr) netip.Addr {
	if a.Is6() && !a.Is4In6() {
		p, err := a.Prefix(64)
		if err == nil {
			return p.Addr()
		}
	}
	return a
}

// allow takes one miss of client; when there is none left it returns how
// long until there is.
func (l *missLimiter) allow(client netip.Addr) (bool, time.Duration) {
	key := clientKey(client)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.maxClients {
			l.sweep(now)
		}
		if len(l.buckets) >= l.maxClients {
			return false, time.Duration(float64(time.Second) / l.rate)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

// sweep drops the buckets that are full again: their clients are at rest
// and a new bucket would be the same. The caller holds mu.
func (l *missLimiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// peerIP is the client IP without trusted proxies: the connection's peer.
func peerIP(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}
