package main

import (
	"net"
	"testing"
)

func TestDerivePublicURLs(t *testing.T) {
	addr := func(s string) net.Addr {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		base, imageBase, imagePath string
		main, image                string
		wantBase, wantImages       string
	}{
		{"", "", "/img", "[::]:8080", "", "http://localhost:8080", "http://localhost:8080/img"},
		{"", "", "/img", "0.0.0.0:8080", "", "http://localhost:8080", "http://localhost:8080/img"},
		{"", "", "/img", "127.0.0.1:8080", "", "http://127.0.0.1:8080", "http://127.0.0.1:8080/img"},
		{"", "", "/img", "[::1]:8080", "", "http://[::1]:8080", "http://[::1]:8080/img"},
		{"", "", "", "[::]:8080", "0.0.0.0:8081", "http://localhost:8080", "http://localhost:8081"},
		{"https://api.example.com/", "", "/img", "[::]:8080", "", "https://api.example.com", "https://api.example.com/img"},
		{"https://api.example.com/v1", "", "", "[::]:8080", "[::]:8081", "https://api.example.com/v1", "https://api.example.com:8081"},
		{"https://api.example.com:8443", "", "", "[::]:8080", "[::]:8081", "https://api.example.com:8443", "https://api.example.com:8081"},
		{"https://api.example.com", "https://cdn.example.com/img/", "", "[::]:8080", "[::]:8081", "https://api.example.com", "https://cdn.example.com/img"},
	} {
		var img net.Addr
		if tc.image != "" {
			img = addr(tc.image)
		}
		got, err := derivePublicURLs(tc.base, tc.imageBase, tc.imagePath, addr(tc.main), img)
		if err != nil || got.base != tc.wantBase || got.images != tc.wantImages {
			t.Errorf("%+v: %+v, %v", tc, got, err)
		}
	}
	for _, bad := range []string{"api.example.com", "ftp://x", "https://", "https://x/?a=b", "/relative"} {
		if _, err := derivePublicURLs(bad, "", "/img", addr("127.0.0.1:1"), nil); err == nil {
			t.Errorf("--base-url %q accepted", bad)
		}
		if _, err := derivePublicURLs("", bad, "/img", addr("127.0.0.1:1"), nil); err == nil {
			t.Errorf("--image-base-url %q accepted", bad)
		}
	}
}
