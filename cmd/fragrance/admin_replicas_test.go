package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAdminKnownLoadOnReplicas runs two replicas on PostgreSQL and Redis:
// a known mix of requests (by key, endpoint and status) goes to both, and
// the dashboard on the first shows exactly those counts per key, endpoint
// and status class; a key suspended there is refused by the second replica
// within seconds (403 suspended_api_key) and taken again once resumed.
func TestAdminKnownLoadOnReplicas(t *testing.T) {
	pgBase, redisURL := backendURLs(t)
	db := freshSchema(t, pgBase)
	const pw = "a long enough password"
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"admin", "create-user", "--db", db, "--email", "ops@example.com", "--password-stdin"},
		noEnv, strings.NewReader(pw+"\n"), &out, &errb); err != nil {
		t.Fatalf("admin create-user: %v\n%s", err, errb.String())
	}
	keys := []string{
		lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "pro", "--email", "one@example.com")),
		lastLine(runCmd(t, "keys", "create", "--db", db, "--tier", "pro", "--email", "two@example.com")),
	}
	args := []string{"--db", db, "--redis", redisURL, "--redis-timeout", "5s", "--admin-allow", "127.0.0.1/32"}
	baseA, _ := startServe(t, noEnv, args...)
	baseB, _ := startServe(t, noEnv, args...)
	bases := []string{baseA, baseB}

	// The mix: each line a key, a path, the status it must answer, how many.
	type req struct {
		key             int
		path            string
		status, n       int
		endpoint, class string
	}
	mix := []req{
		{0, "/api/perfumes?limit=1", 200, 7, "perfumes.list", "2xx"},
		{0, "/api/perfumes/no-such-perfume-anywhere", 404, 3, "perfumes.detail", "4xx"},
		{0, "/api/perfumes?limit=abc", 400, 2, "perfumes.list", "4xx"},
		{1, "/api/brands?limit=1", 200, 5, "brands.list", "2xx"},
		{1, "/api/notes?limit=1", 200, 1, "notes.list", "2xx"},
		{1, "/api/perfumers/no-such-perfumer-anywhere", 404, 4, "perfumers.detail", "4xx"},
	}
	wantEndpoints := []map[string]int{{}, {}}
	wantClasses := []map[string]int{{}, {}}
	sent := 0
	for _, m := range mix {
		for i := 0; i < m.n; i++ {
			code, _, _ := keyedGet(t, http.DefaultClient, bases[sent%2]+m.path, keys[m.key])
			sent++
			if code != m.status {
				t.Fatalf("%s: %d, want %d", m.path, code, m.status)
			}
		}
		wantEndpoints[m.key][m.endpoint] += m.n
		wantClasses[m.key][m.class] += m.n
	}

	// The dashboard on A, signed in.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	get := func(path string) (int, string) {
		t.Helper()
		res, err := browser.Get(baseA + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	res, err := browser.PostForm(baseA+"/admin/signin", url.Values{"email": {"ops@example.com"}, "password": {pw}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("sign in: %d", res.StatusCode)
	}

	// Both replicas flush their counts every 5 s: wait until the tables
	// show the mix, then they must show exactly it.
	for k, key := range keys {
		prefix := key[:12]
		endpoints := func() map[string]int {
			got := map[string]int{}
			code, body := get("/admin/keys/" + prefix + "?format=csv&table=endpoints")
			if code != 200 {
				t.Fatalf("endpoints CSV of %s: %d", prefix, code)
			}
			for _, row := range readCSV(t, body)[1:] {
				got[row[0]] = atoi(t, row[1])
			}
			return got
		}
		var got map[string]int
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
			if got = endpoints(); fmt.Sprint(got) == fmt.Sprint(wantEndpoints[k]) {
				break
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantEndpoints[k]) {
			t.Errorf("key %d by endpoint: %v, want %v", k, got, wantEndpoints[k])
		}
		_, body := get("/admin/keys/" + prefix + "?format=csv&table=daily")
		rows := readCSV(t, body)
		classes := map[string]int{}
		for _, row := range rows[1:] {
			for j, head := range rows[0] {
				if j > 0 && head != "All" {
					if n := atoi(t, row[j]); n > 0 {
						classes[head] += n
					}
				}
			}
		}
		if fmt.Sprint(classes) != fmt.Sprint(wantClasses[k]) {
			t.Errorf("key %d by status class: %v, want %v", k, classes, wantClasses[k])
		}
	}

	// Suspend on A; B refuses the key within seconds; resume; B takes it.
	prefix := keys[0][:12]
	apiB := func() (int, string) {
		code, m, _ := keyedGet(t, http.DefaultClient, baseB+"/api/perfumes?limit=1", keys[0])
		c, _ := m["code"].(string)
		return code, c
	}
	res, err = browser.PostForm(baseA+"/admin/keys/"+prefix+"/suspend", url.Values{"reason": {"a known-load test"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	waitFor(t, "the suspension to reach the second replica", func() bool {
		code, c := apiB()
		return code == http.StatusForbidden && c == "suspended_api_key"
	})
	res, err = browser.PostForm(baseA+"/admin/keys/"+prefix+"/resume", url.Values{"reason": {"done"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	waitFor(t, "the resumption to reach the second replica", func() bool { code, _ := apiB(); return code == http.StatusOK })
	if _, body := get("/admin/audit?target=" + prefix); !strings.Contains(body, "a known-load test") || !strings.Contains(body, "key.resume") {
		t.Error("the audit log lacks the suspension or the resumption")
	}
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("not a CSV (%v):\n%s", err, s)
	}
	return rows
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatalf("%q is not a count", s)
	}
	return n
}
