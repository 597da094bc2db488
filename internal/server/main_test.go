package server_test

import (
	"net/http"
	"testing"

	"github.com/fragrance-data/fragrance/internal/index"
	"github.com/fragrance-data/fragrance/internal/servetest"
)

// newConfig is the server configuration tests modify.
type newConfig = servetest.Config

// newServer is the whole HTTP surface as served over the bundled
// catalogue, with mod applied to its configuration.
func newServer(t testing.TB, mod func(*newConfig)) http.Handler {
	t.Helper()
	return servetest.NewServer(t, mod)
}

var (
	do        = servetest.Do
	decode    = servetest.Decode
	testMeter = servetest.Meter
)

// emptyHolder is a catalogue that has not loaded yet.
func emptyHolder() *index.Holder { return index.NewHolder(nil) }
