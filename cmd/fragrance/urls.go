package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
)

// publicURLs are the addresses serve gives out: in API answers (buyUrl,
// image URLs) and in its start-up log.
type publicURLs struct {
	// base is the API's and the pages' base URL, without a trailing slash.
	base string
	// images is what image URLs start with, without a trailing slash.
	images string
}

// derivePublicURLs works out the public URLs from the flags and the
// listeners' real addresses. Without --base-url the main listener's
// address is used, with a wildcard or empty host (":8080", "[::]:8080")
// made "localhost", since no client can reach a wildcard. Image URLs are
// --image-base-url when given; else, on the main listener, base +
// imagePath; else, on their own listener (imageAddr not nil), base's
// scheme and host with that listener's port.
func derivePublicURLs(baseURL, imageBaseURL, imagePath string, mainAddr, imageAddr net.Addr) (publicURLs, error) {
	var u publicURLs
	u.base = strings.TrimRight(baseURL, "/")
	if u.base == "" {
		u.base = "http://" + reachable(mainAddr.String())
	} else if err := checkBaseURL("--base-url", u.base); err != nil {
		return u, err
	}
	u.images = strings.TrimRight(imageBaseURL, "/")
	switch {
	case u.images != "":
		if err := checkBaseURL("--image-base-url", u.images); err != nil {
			return u, err
		}
	case imageAddr == nil:
		u.images = u.base + imagePath
	default:
		_, port, err := net.SplitHostPort(imageAddr.String())
		if err != nil {
			return u, fmt.Errorf("image listener %s: %w", imageAddr, err)
		}
		b, _ := url.Parse(u.base) // checked above, or made here
		u.images = b.Scheme + "://" + net.JoinHostPort(b.Hostname(), port)
	}
	return u, nil
}

// reachable replaces a wildcard or empty host of a listen address by
// localhost.
func reachable(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// checkBaseURL refuses a base URL that is not absolute http(s) with a
// host: it is pasted before every path the service gives out.
func checkBaseURL(flag, s string) error {
	b, err := url.Parse(s)
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" || b.RawQuery != "" || b.Fragment != "" {
		return fmt.Errorf("%s %q: want an absolute http:// or https:// URL such as https://api.example.com", flag, s)
	}
	return nil
}

// log writes the public URLs in use, one line each, so an operator sees
// at start-up what clients will be sent to.
// hosts are the host names of the base URL and the image base URL, which
// a reverse proxy on the same machine keeps in the Host it forwards.
func (u publicURLs) hosts() []string {
	var out []string
	for _, s := range []string{u.base, u.images} {
		if p, err := url.Parse(s); err == nil && p.Hostname() != "" {
			out = append(out, p.Hostname())
		}
	}
	return out
}

func (u publicURLs) log(log *slog.Logger) {
	log.Info("public URL", "of", "api", "url", u.base+"/api")
	log.Info("public URL", "of", "images", "url", u.images)
	log.Info("public URL", "of", "website", "url", u.base+"/")
}
