// Command ceiling is the load benchmark's yardstick: the least a Go HTTP
// server can do to answer a request.
//
// With --answers it replays recorded answers of the service: for each
// request URI the benchmark sends, the very status, headers and body the
// service gave (recorded once by bench/load/record), looked up in a map and written as
// they are. The two then move the same bytes for the same requests, headers
// included (the contract's rate-limit, CORS, request-id and version headers
// are a tenth of a small answer, and a client pays to read them too), and
// the ratio of their request rates is what the service's own work costs.
//
// With --body it answers every request with one pre-encoded body and only
// Content-Type and Content-Length: the bare minimum, shown beside the
// replay for reference.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only; port 0 picks a free port)")
	answers := flag.String("answers", "", "directory of recorded answers: index.tsv (URI TAB name per line), NAME.head (as curl -D writes it), NAME.body")
	bodyPath := flag.String("body", "", "file whose bytes are every answer's body (instead of --answers)")
	portFile := flag.String("port-file", "", "write the chosen address here once listening")
	flag.Parse()
	var h http.Handler
	var err error
	switch {
	case *answers != "" && *bodyPath == "":
		h, err = replay(*answers)
		// Loading read every file once: give that garbage back, so that
		// resident memory is the answers (tens of thousands in the cold
		// and zipf mixes), not twice them.
		debug.FreeOSMemory()
	case *bodyPath != "" && *answers == "":
		h, err = bare(*bodyPath)
	default:
		err = errors.New("give exactly one of --answers and --body")
	}
	if err == nil {
		err = serve(*addr, *portFile, h)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func serve(addr, portFile string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	if portFile != "" {
		if err := os.WriteFile(portFile, []byte(ln.Addr().String()), 0o644); err != nil {
			return fmt.Errorf("write port file: %w", err)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// bare answers every request with body.
func bare(path string) (http.Handler, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	size := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Type", "application/json; charset=utf-8")
		hd.Set("Content-Length", size)
		w.Write(body)
	}), nil
}

// answer is one recorded answer.
type answer struct {
	status int
	header http.Header // canonical names; Content-Length included, Date left to net/http
	body   []byte
}

// replay answers each recorded request URI with its recorded answer, and
// anything else with 404.
func replay(dir string) (http.Handler, error) {
	index, err := os.ReadFile(filepath.Join(dir, "index.tsv"))
	if err != nil {
		return nil, fmt.Errorf("read answers: %w", err)
	}
	byURI := map[string]*answer{}
	for n, line := range strings.Split(strings.TrimSpace(string(index)), "\n") {
		uri, name, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("index.tsv:%d: want URI TAB name", n+1)
		}
		a, err := load(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("index.tsv:%d: %w", n+1, err)
		}
		byURI[uri] = a
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := byURI[r.RequestURI]
		if !ok {
			http.NotFound(w, r)
			return
		}
		hd := w.Header()
		for k, v := range a.header {
			hd[k] = v
		}
		w.WriteHeader(a.status)
		w.Write(a.body)
	}), nil
}

// load reads NAME.head (a status line and header lines, as curl -D writes
// them) and NAME.body.
func load(name string) (*answer, error) {
	body, err := os.ReadFile(name + ".body")
	if err != nil {
		return nil, err
	}
	head, err := os.ReadFile(name + ".head")
	if err != nil {
		return nil, err
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	status, err := tp.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("%s.head: %w", name, err)
	}
	// "HTTP/1.1 200 OK"
	f := strings.Fields(status)
	if len(f) < 2 {
		return nil, fmt.Errorf("%s.head: bad status line %q", name, status)
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return nil, fmt.Errorf("%s.head: bad status line %q", name, status)
	}
	mh, err := tp.ReadMIMEHeader()
	if err != nil && len(mh) == 0 {
		return nil, fmt.Errorf("%s.head: %w", name, err)
	}
	h := http.Header(mh)
	h.Del("Date") // net/http writes its own, as it does for the service
	h.Del("Connection")
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &answer{status: code, header: h, body: body}, nil
}
