package fault

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadPaths are cheap keyed requests of several routes.
var loadPaths = []string{"/api/perfumes?limit=2", "/api/perfumes/dior-sauvage", "/api/brands?q=dior&limit=2",
	"/api/perfumes?q=rose&limit=3", "/api/perfumes/dior-sauvage/similar?limit=3", "/api/notes?limit=3"}

// answerAt is one answer of a load: its status (0: none came) and when it
// arrived.
type answerAt struct {
	status int
	at     time.Time
}

// load is clients sending keyed GETs in a loop, each pausing between
// requests (the suite shares its machine; a few hundred requests a
// second are plenty to see what a fault does).
type load struct {
	stopc chan struct{}
	wg    sync.WaitGroup

	mu      sync.Mutex
	answers []answerAt
}

func startLoad(base, key string, clients int, pause time.Duration) *load {
	l := &load{stopc: make(chan struct{})}
	for c := 0; c < clients; c++ {
		l.wg.Add(1)
		go func(c int) {
			defer l.wg.Done()
			client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			for i := c; ; i++ {
				select {
				case <-l.stopc:
					return
				default:
				}
				status := 0
				req, _ := http.NewRequest("GET", base+loadPaths[i%len(loadPaths)], nil)
				req.Header.Set("X-API-Key", key)
				if resp, err := client.Do(req); err == nil {
					if _, err := io.Copy(io.Discard, resp.Body); err == nil {
						status = resp.StatusCode
					}
					resp.Body.Close()
				}
				l.mu.Lock()
				l.answers = append(l.answers, answerAt{status, time.Now()})
				l.mu.Unlock()
				if status == 0 {
					time.Sleep(50 * time.Millisecond) // a dead server is not hammered
				}
				time.Sleep(pause)
			}
		}(c)
	}
	return l
}

// stop ends the load and waits for the clients.
func (l *load) stop() {
	close(l.stopc)
	l.wg.Wait()
}

// snapshot is a copy of the answers so far.
func (l *load) snapshot() []answerAt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]answerAt(nil), l.answers...)
}

// admitted counts 2xx answers.
func admitted(as []answerAt) int64 {
	var n int64
	for _, a := range as {
		if a.status >= 200 && a.status < 300 {
			n++
		}
	}
	return n
}

// byStatus summarises answers in [from, to) as "200: 1234, 503: 5".
func byStatus(as []answerAt, from, to time.Time) string {
	m := map[int]int{}
	for _, a := range as {
		if !a.at.Before(from) && a.at.Before(to) {
			m[a.status]++
		}
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		name := fmt.Sprint(k)
		if k == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// noFailuresAfter fails the test for any answer after t that is not 2xx.
func noFailuresAfter(tb testing.TB, as []answerAt, t time.Time, what string) {
	tb.Helper()
	bad := 0
	for _, a := range as {
		if a.at.After(t) && (a.status < 200 || a.status >= 300) {
			bad++
		}
	}
	if bad > 0 {
		tb.Errorf("%s: %d answers not 2xx (%s)", what, bad, byStatus(as, t, time.Now().Add(time.Hour)))
	}
}
