package onewrite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// countingListener counts the write calls on the connections it accepts.
type countingListener struct {
	net.Listener
	mu     sync.Mutex
	writes []int // the length of each write, in order, over every connection
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes = append(c.l.writes, len(p))
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

func (l *countingListener) take() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.writes
	l.writes = nil
	return w
}

// serve starts an http.Server on a loopback listener wrapped by Listener
// (when wrap is set) and counted beneath it.
func serve(t *testing.T, h http.Handler, wrap bool) (*countingListener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	var served net.Listener = cl
	if wrap {
		srv.ConnContext = ConnContext
		served = Listener(cl)
	}
	go srv.Serve(served)
	t.Cleanup(func() { srv.Close() })
	return cl, "http://" + ln.Addr().String()
}

// wholeBody answers ?n=N with N bytes written by Write.
func wholeBody(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	body := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	if err := Write(w, r, body); err != nil && !errors.Is(err, http.ErrBodyNotAllowed) {
		panic(err)
	}
}

// TestOneWritePerAnswer: answers of every size, small to far over net/http's
// 4 KB buffer and over what heldBufs keeps, arrive whole, in order, on one
// kept-alive connection, each in a single write of the connection; without
// the listener the same handler answers as net/http does (two writes over
// 4 KB).
func TestOneWritePerAnswer(t *testing.T) {
	sizes := []int{0, 1, 100, 4000, 4096, 5000, 11000, 48000, 300000, 7}
	for _, wrap := range []bool{true, false} {
		cl, base := serve(t, http.HandlerFunc(wholeBody), wrap)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		for _, n := range sizes {
			resp, err := client.Get(fmt.Sprintf("%s/?n=%d", base, n))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
			if !bytes.Equal(got, want) {
				t.Fatalf("wrap %v, %d bytes: got %d bytes, not the body", wrap, n, len(got))
			}
			writes := cl.take()
			switch {
			case wrap && len(writes) != 1:
				t.Errorf("through Listener, an answer of %d bytes took %d writes %v, want 1", n, len(writes), writes)
			case !wrap && n > 5000 && len(writes) < 2:
				t.Errorf("without Listener, an answer of %d bytes took %d writes %v: the comparison lost its point", n, len(writes), writes)
			}
		}
	}
}

// TestOneWriteHead: a HEAD answer has its headers, no body, in one write.
func TestOneWriteHead(t *testing.T) {
	cl, base := serve(t, http.HandlerFunc(wholeBody), true)
	resp, err := http.Head(base + "/?n=9000")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != 9000 {
		t.Fatalf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	if w := cl.take(); len(w) != 1 || w[0] > 1000 {
		t.Fatalf("HEAD took writes %v, want one of the headers", w)
	}
}

// TestOneWriteOtherAnswers: answers that do not use Write (a file served
// by http.ServeContent, which net/http may send with sendfile through the
// connection's ReadFrom; a streamed body) go out as net/http writes them,
// and a Write after them on the same connection is one write again.
func TestOneWriteOtherAnswers(t *testing.T) {
	dir := t.TempDir()
	file := bytes.Repeat([]byte("photo"), 20000)
	if err := os.WriteFile(filepath.Join(dir, "a.jpg"), file, 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/files/", http.StripPrefix("/files/", http.FileServer(http.Dir(dir))))
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		for i := range 50 {
			fmt.Fprintf(w, "line %d %s\n", i, bytes.Repeat([]byte("x"), 200))
		}
	})
	mux.HandleFunc("/whole", wholeBody)
	cl, base := serve(t, mux, true)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	get := func(path string) []byte {
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
		}
		return b
	}
	if got := get("/files/a.jpg"); !bytes.Equal(got, file) {
		t.Fatalf("file: %d bytes, not the file", len(got))
	}
	cl.take()
	sc := bufio.NewScanner(bytes.NewReader(get("/stream")))
	lines := 0
	for sc.Scan() {
		lines++
	}
	if lines != 50 {
		t.Fatalf("stream: %d lines, want 50", lines)
	}
	cl.take()
	if got := get("/whole?n=20000"); len(got) != 20000 {
		t.Fatalf("whole after the others: %d bytes", len(got))
	}
	if w := cl.take(); len(w) != 1 {
		t.Fatalf("whole after the others: writes %v, want 1", w)
	}
}

// TestWriteWithoutListener: without the listener's connection (a recorder,
// a server without ConnContext, no request) Write is w.Write.
func TestWriteWithoutListener(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := Write(rec, httptest.NewRequest("GET", "/", nil), []byte("abc")); err != nil || rec.Body.String() != "abc" {
		t.Fatalf("recorder: %v %q", err, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	if err := Write(rec, nil, []byte("abc")); err != nil || rec.Body.String() != "abc" {
		t.Fatalf("no request: %v %q", err, rec.Body.String())
	}
}

// TestWriteClientGone: an answer to a client that has closed its
// connection returns the write's error (after enough answers for the
// kernel to refuse), and the connection holds nothing afterwards.
func TestWriteClientGone(t *testing.T) {
	errs := make(chan error, 100)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bytes.Repeat([]byte("z"), 1<<20)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		// Wait for the client to go, so that the write meets a closed
		// connection.
		<-r.Context().Done()
		errs <- Write(w, r, body)
	})
	_, base := serve(t, h, true)
	c, err := net.Dial("tcp", base[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(100 * time.Millisecond)
	c.Close()
	select {
	case err := <-errs:
		if err == nil {
			t.Fatal("a 1 MB answer to a closed connection wrote without error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not finish")
	}
}

// opaqueWriter hides the ResponseWriter it wraps from
// http.ResponseController: no Flush, no Unwrap.
type opaqueWriter struct{ w http.ResponseWriter }

func (o opaqueWriter) Header() http.Header         { return o.w.Header() }
func (o opaqueWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
func (o opaqueWriter) WriteHeader(code int)        { o.w.WriteHeader(code) }

// TestWriteThroughAWriterThatCannotFlush: behind a writer that hides
// net/http's, Write cannot flush; the answer still arrives whole, in
// net/http's writes, and is no error.
func TestWriteThroughAWriterThatCannotFlush(t *testing.T) {
	_, base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wholeBody(opaqueWriter{w}, r)
	}), true)
	for _, n := range []int{10, 9000, 70000} {
		resp, err := http.Get(fmt.Sprintf("%s/?n=%d", base, n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(got) != n || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d bytes through an opaque writer: %d %d bytes %v", n, resp.StatusCode, len(got), err)
		}
	}
}
