package main

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/web"
)

// The binary's version, sent as X-API-Version, is the changelog's newest.
func TestVersionIsTheChangelogsNewest(t *testing.T) {
	site, err := web.New(web.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if newest := site.Changelog()[0].Version; version != newest {
		t.Errorf("version %s; the changelog's newest is %s", version, newest)
	}
}
