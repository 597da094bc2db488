// Command fragrance is the fragrance data service: one binary that serves the
// API, imports catalogues and manages API keys. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if err != errUsage {
			fmt.Fprintln(os.Stderr, "fragrance:", err)
		}
		os.Exit(exitCode(err))
	}
}

// env is the source of environment variables; tests pass their own.
type env func(string) string

// cmdIO bundles what every subcommand reads from and writes to.
type cmdIO struct {
	getenv env
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}
