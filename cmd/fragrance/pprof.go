package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// servePprof serves the Go runtime profiles on their own listener, so they
// are never reachable through the public one, and returns its stop function.
// It is off unless --pprof-addr is given; when on, lock contention is
// sampled too (one event in 20), for /debug/pprof/mutex.
func servePprof(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr %s: %w", addr, err)
	}
	runtime.SetMutexProfileFraction(20)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	log.Info("profiles listening", "addr", ln.Addr().String())
	return func() { srv.Close() }, nil
}
