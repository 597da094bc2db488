package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the service's semantic version, sent as X-API-Version. The
// release build may override it with -ldflags "-X main.version=...".
var version = "1.7.0"

func runVersion(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("version", "version", cio)
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	commit := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				commit = s.Value
			}
		}
	}
	fmt.Fprintf(cio.stdout, "fragrance %s (commit %s, %s)\n", version, commit, runtime.Version())
	return nil
}
