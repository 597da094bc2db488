// Command ceiling is the load benchmark's yardstick: the least a Go HTTP
// server can do for a request, answering every request with the same
// pre-encoded body. The benchmark gives it a real answer of the service, so
// the two move the same bytes and the ratio of their request rates is what
// the service's own work costs.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only; port 0 picks a free port)")
	bodyPath := flag.String("body", "", "file whose bytes are every answer's body")
	portFile := flag.String("port-file", "", "write the chosen address here once listening")
	flag.Parse()
	if err := run(*addr, *bodyPath, *portFile); err != nil {
		log.Fatal(err)
	}
}

func run(addr, bodyPath, portFile string) error {
	body, err := os.ReadFile(bodyPath)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	if portFile != "" {
		if err := os.WriteFile(portFile, []byte(ln.Addr().String()), 0o644); err != nil {
			return fmt.Errorf("write port file: %w", err)
		}
	}
	size := strconv.Itoa(len(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Type", "application/json; charset=utf-8")
		hd.Set("Content-Length", size)
		w.Write(body)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}
