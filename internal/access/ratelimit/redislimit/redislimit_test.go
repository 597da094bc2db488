package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/limitertest"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit"
	"github.com/fragrance-data/fragrance/internal/access/ratelimit/redislimit/redistest"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/testclock"
)

func TestRedisLimiterContract(t *testing.T) {
	o := redistest.Options(t)
	client := redis.NewClient(o)
	t.Cleanup(func() { client.Close() })
	limitertest.Run(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		return redistest.Limiter(t, client, now, time.Minute)
	})
}

// TestRedisLimiterContractReplicas runs the contract against three
// replicas taking turns, each with its own shadow: the shadows see a third
// of the traffic each, so the script alone must hold the limits.
func TestRedisLimiterContractReplicas(t *testing.T) {
	client := redis.NewClient(redistest.Options(t))
	t.Cleanup(func() { client.Close() })
	limitertest.Run(t, func(t *testing.T, now func() time.Time) ratelimit.Limiter {
		prefix := redistest.Prefix(t, client)
		rr := &roundRobin{}
		for i := 0; i < 3; i++ {
			l, err := redislimit.New(context.Background(), redislimit.Options{
				Client: client, Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: now}),
				KeyPrefix: prefix, Now: now, Timeout: redistest.Timeout,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			rr.replicas = append(rr.replicas, l)
		}
		return rr
	})
}

// roundRobin sends each request to the next replica.
type roundRobin struct {
	next     atomic.Uint64
	replicas []ratelimit.Limiter
}

func (r *roundRobin) Allow(ctx context.Context, id string, l apikey.Limits) (ratelimit.Decision, error) {
	return r.replicas[r.next.Add(1)%uint64(len(r.replicas))].Allow(ctx, id, l)
}

func (r *roundRobin) AllowN(ctx context.Context, id string, l apikey.Limits, n int64) (ratelimit.Decision, error) {
	return r.replicas[r.next.Add(1)%uint64(len(r.replicas))].AllowN(ctx, id, l, n)
}

func (r *roundRobin) Peek(ctx context.Context, id string, l apikey.Limits) (ratelimit.Decision, error) {
	return r.replicas[r.next.Add(1)%uint64(len(r.replicas))].Peek(ctx, id, l)
}

// TestRedisLimiterSharedWindows checks that two replicas share a window.
func TestRedisLimiterSharedWindows(t *testing.T) {
	client := redis.NewClient(redistest.Options(t))
	t.Cleanup(func() { client.Close() })
	clock := testclock.New(limitertest.Base)
	prefix := redistest.Prefix(t, client)
	var replicas []ratelimit.Limiter
	for i := 0; i < 2; i++ {
		l, err := redislimit.New(context.Background(), redislimit.Options{
			Client: client, Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{Now: clock.Now}),
			KeyPrefix: prefix, Now: clock.Now,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		replicas = append(replicas, l)
	}
	lim := apikey.Limits{PerMinute: 10, PerDay: 100}
	admitted := 0
	for i := 0; i < 30; i++ {
		d, err := replicas[i%2].Allow(context.Background(), "fds_shared00", lim)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			admitted++
		}
	}
	if admitted != 10 {
		t.Fatalf("two replicas admitted %d, want 10 in all", admitted)
	}
}

func TestRedisUnreachableFallsBack(t *testing.T) {
	reg := prometheus.NewRegistry()
	l, err := redislimit.New(context.Background(), redislimit.Options{
		URL: "redis://127.0.0.1:1/0", Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{}),
		Timeout: 50 * time.Millisecond, Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st := l.Status()
	if !st.Degraded || st.Backend != "redis" || st.LastError == "" {
		t.Fatalf("status = %+v, want degraded", st)
	}
	lim := apikey.Limits{PerMinute: 2, PerDay: 10}
	var allowed int
	for i := 0; i < 5; i++ {
		d, err := l.Allow(context.Background(), "fds_fallback", lim)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed != 2 {
		t.Fatalf("fallback admitted %d, want 2", allowed)
	}
	if v := gauge(t, reg, "fragrance_ratelimit_redis_up"); v != 0 {
		t.Fatalf("redis_up = %v", v)
	}
}

// gauge reads a registered gauge's value.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

// flakyDialer connects to Redis unless broken; connections made while it
// worked fail as soon as it breaks.
type flakyDialer struct {
	addr   string
	broken atomic.Bool
}

func (f *flakyDialer) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	if f.broken.Load() {
		return nil, errors.New("flaky: network down")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, f.addr)
	if err != nil {
		return nil, err
	}
	return &flakyConn{Conn: c, d: f}, nil
}

type flakyConn struct {
	net.Conn
	d *flakyDialer
}

func (c *flakyConn) Write(b []byte) (int, error) {
	if c.d.broken.Load() {
		c.Conn.Close()
		return 0, errors.New("flaky: network down")
	}
	return c.Conn.Write(b)
}

// TestRedisRecovers breaks the network, checks the fallback keeps this
// replica within its limits, and that the probe returns to Redis.
func TestRedisRecovers(t *testing.T) {
	o := redistest.Options(t)
	fd := &flakyDialer{addr: o.Addr}
	o.Dialer = fd.dial
	o.MaxRetries = -1
	client := redis.NewClient(o)
	t.Cleanup(func() { client.Close() })
	clock := testclock.New(limitertest.Base)
	l := redistest.Limiter(t, client, clock.Now, 10*time.Millisecond)
	lim := apikey.Limits{PerMinute: 3, PerDay: 100}
	allow := func() bool {
		d, err := l.Allow(context.Background(), "fds_recover0", lim)
		if err != nil {
			t.Fatal(err)
		}
		return d.Allowed
	}
	if !allow() || l.Status().Degraded {
		t.Fatalf("first request: status %+v", l.Status())
	}
	fd.broken.Store(true)
	if !allow() || !allow() {
		t.Fatal("fallback refused within the limit")
	}
	if !l.Status().Degraded {
		t.Fatal("not degraded while Redis is unreachable")
	}
	fd.broken.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for l.Status().Degraded {
		if time.Now().After(deadline) {
			t.Fatal("the probe did not return to Redis")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Redis saw one request, the shadow three: this replica stays within 3.
	if allow() {
		t.Fatal("admitted a 4th request after recovery: over-admission on one replica")
	}
	clock.Add(time.Minute)
	if !allow() {
		t.Fatal("refused after the window passed")
	}
}

// TestRedisClockAndExpiry uses Redis's own clock, as production does, and
// checks that the window keys expire.
func TestRedisClockAndExpiry(t *testing.T) {
	client := redis.NewClient(redistest.Options(t))
	t.Cleanup(func() { client.Close() })
	prefix := redistest.Prefix(t, client)
	l, err := redislimit.New(context.Background(), redislimit.Options{
		Client: client, Local: ratelimit.NewMemLimiter(ratelimit.MemOptions{}), KeyPrefix: prefix,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, lim := range []apikey.Limits{{PerMinute: 60, PerDay: 1000}, {PerMinute: 5000, PerDay: 5_000_000}} {
		id := fmt.Sprintf("fds_clock%04d", lim.PerMinute)
		d, err := l.Allow(context.Background(), id, lim)
		if err != nil || !d.Allowed {
			t.Fatalf("Allow: %+v, %v", d, err)
		}
		if skew := time.Since(d.At); skew < -time.Minute || skew > time.Minute {
			t.Fatalf("decision time %v is not Redis's clock (now %v)", d.At, time.Now())
		}
		keys, err := client.Keys(context.Background(), prefix+"{"+id+"}*").Result()
		if err != nil || len(keys) != 2 {
			t.Fatalf("window keys %v, %v; want a minute and a day key", keys, err)
		}
		for _, k := range keys {
			ttl, err := client.PTTL(context.Background(), k).Result()
			if err != nil || ttl <= 0 || ttl > 24*time.Hour+time.Minute {
				t.Fatalf("TTL of %s = %v, %v", k, ttl, err)
			}
		}
	}
}

// TestRedisLossSeenWithoutTraffic: the probe notices a lost Redis though
// no request comes, so Status (and /healthz, /metrics) never claims shared
// windows that are gone. (Before, only a request's failure showed it.)
func TestRedisLossSeenWithoutTraffic(t *testing.T) {
	o := redistest.Options(t)
	fd := &flakyDialer{addr: o.Addr}
	o.Dialer = fd.dial
	o.MaxRetries = -1
	client := redis.NewClient(o)
	t.Cleanup(func() { client.Close() })
	l := redistest.Limiter(t, client, nil, 10*time.Millisecond)
	if l.Status().Degraded {
		t.Fatalf("degraded at start: %+v", l.Status())
	}
	fd.broken.Store(true)
	deadline := time.Now().Add(10 * time.Second)
	for !l.Status().Degraded {
		if time.Now().After(deadline) {
			t.Fatal("the probe did not notice the lost Redis")
		}
		time.Sleep(5 * time.Millisecond)
	}
	fd.broken.Store(false)
	for l.Status().Degraded {
		if time.Now().After(deadline) {
			t.Fatal("the probe did not return to Redis")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
