package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func service(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "k" || r.URL.Path == "/missing" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		w.Header().Set("X-Api-Version", "1")
		fmt.Fprintf(w, "answer to %s", r.RequestURI)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRecord(t *testing.T) {
	srv := service(t)
	dir := t.TempDir()
	var paths []string
	for i := range 50 {
		paths = append(paths, fmt.Sprintf("/api/perfumes?q=x+%d", i))
	}
	list := filepath.Join(dir, "paths")
	os.WriteFile(list, []byte(strings.Join(paths, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "answers")
	n, size, err := run(srv.URL, "k", list, out, 4)
	if err != nil {
		t.Fatal(err)
	}
	if n != 50 || size == 0 {
		t.Errorf("n = %d, size = %d", n, size)
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.tsv"))
	for i, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		uri, name, _ := strings.Cut(line, "\t")
		if uri != paths[i] {
			t.Fatalf("index line %d: %q, want %q", i, uri, paths[i])
		}
		body, _ := os.ReadFile(filepath.Join(out, name+".body"))
		if string(body) != "answer to "+uri {
			t.Errorf("%s: body %q", uri, body)
		}
		head, _ := os.ReadFile(filepath.Join(out, name+".head"))
		tp := textproto.NewReader(bufio.NewReader(strings.NewReader(string(head))))
		status, _ := tp.ReadLine()
		h, err := tp.ReadMIMEHeader()
		if status != "HTTP/1.1 200 OK" || err != nil || h.Get("X-Api-Version") != "1" {
			t.Errorf("%s: head %q", uri, head)
		}
	}
}

func TestRecordFailsOnNon200(t *testing.T) {
	srv := service(t)
	dir := t.TempDir()
	list := filepath.Join(dir, "paths")
	os.WriteFile(list, []byte("/a\n/missing\n/b\n"), 0o644)
	_, _, err := run(srv.URL, "k", list, filepath.Join(dir, "answers"), 2)
	if err == nil || !strings.Contains(err.Error(), "/missing") || !strings.Contains(err.Error(), "404") {
		t.Errorf("err = %v, want the 404 of /missing", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "answers", "index.tsv")); err == nil {
		t.Error("an index was written despite the failure")
	}
}
