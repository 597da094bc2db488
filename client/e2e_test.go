package client

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The end-to-end tests run against a real server, which test/clients
// starts (FRAGRANCE_TEST_CLIENTS=1 go test ./test/clients): it sets
// FRAGRANCE_TEST_URL, FRAGRANCE_API_KEY (a key whose limits never bind),
// FRAGRANCE_TEST_LIMITED_KEY (one request a minute), and what the sync
// test needs to import: FRAGRANCE_TEST_BIN, FRAGRANCE_TEST_DB,
// FRAGRANCE_TEST_IMPORT (a file) and FRAGRANCE_TEST_CHANGED (the slugs it
// changes, renamed "Changed ...").
func server(t *testing.T) (*Client, string) {
	t.Helper()
	base := os.Getenv("FRAGRANCE_TEST_URL")
	if base == "" {
		t.Skip("FRAGRANCE_TEST_URL not set: test/clients runs these against the built binary")
	}
	c, err := New(base)
	if err != nil {
		t.Fatal(err)
	}
	return c, base
}

// TestEveryEndpoint calls each endpoint of the API once and checks that
// its answer is typed and filled.
func TestEveryEndpoint(t *testing.T) {
	c, _ := server(t)
	ctx := context.Background()
	q, limit := "sauvage", 5
	page, err := c.Perfumes(ctx, &ListPerfumesParams{Q: &q, Limit: &limit})
	if err != nil || len(page.Data) == 0 || page.Limit != 5 {
		t.Fatalf("Perfumes: %+v, %v", page, err)
	}
	slug := page.Data[0].Id
	d, err := c.Perfume(ctx, slug)
	check(t, "Perfume", err, d != nil && d.Id == slug && d.Name != "")
	sim, err := c.Similar(ctx, slug, nil)
	check(t, "Similar", err, sim != nil && sim.Source.Id == slug)
	dup, err := c.Dupes(ctx, slug, nil)
	check(t, "Dupes", err, dup != nil && dup.Source.Id == slug)
	acc := "woody"
	m, err := c.Match(ctx, &MatchPerfumesParams{Accords: &acc})
	check(t, "Match", err, m != nil && len(m.Data) > 0)
	ch, err := c.Changes(ctx, &PerfumeChangesParams{Limit: &limit})
	check(t, "Changes", err, ch != nil && len(ch.Data) == 5 && ch.NextCursor != "")
	b, err := c.Brands(ctx, nil)
	check(t, "Brands", err, b != nil && len(b.Data) > 0)
	n, err := c.Notes(ctx, &ListNotesParams{Limit: &limit})
	check(t, "Notes", err, n != nil && len(n.Data) == 5)
	ps, err := c.Perfumers(ctx)
	check(t, "Perfumers", err, ps != nil && len(ps.Data) > 0)
	pr, err := c.Perfumer(ctx, ps.Data[0].Slug, nil)
	check(t, "Perfumer", err, pr != nil && pr.Slug == ps.Data[0].Slug)
	a, err := c.Accords(ctx, nil)
	check(t, "Accords", err, a != nil && len(a.Data) > 0)
	u, err := c.Usage(ctx, nil)
	check(t, "Usage", err, u != nil && u.Key.Tier != "")
	s, err := c.Search(ctx, &SiteSearchParams{Q: &q})
	check(t, "Search", err, s != nil && len(s.Perfumes) > 0)
	img, err := c.FetchImage(ctx, d.Image, d.ImageTransparent)
	check(t, "FetchImage", err, img != nil && len(img.Body) > 0 && img.Transparent == d.ImageTransparentAvailable)
	seen := 0
	brand := d.BrandSlug
	for p, err := range c.AllPerfumes(ctx, &ListPerfumesParams{Brand: &brand, Limit: &limit}) {
		if err != nil {
			t.Fatalf("AllPerfumes: %v", err)
		}
		seen++
		_ = p
	}
	if all, _ := c.Perfumes(ctx, &ListPerfumesParams{Brand: &brand}); seen != all.Total {
		t.Errorf("AllPerfumes of %s: %d perfumes, the list says %d", brand, seen, all.Total)
	}
}

func check(t *testing.T, what string, err error, ok bool) {
	t.Helper()
	if err != nil || !ok {
		t.Errorf("%s: ok %v, err %v", what, ok, err)
	}
}

// TestProblemsAreTypedErrors: an unknown slug, a bad parameter and a
// refused request come back as *Error with the service's code.
func TestProblemsAreTypedErrors(t *testing.T) {
	c, base := server(t)
	ctx := context.Background()
	var e *Error
	if _, err := c.Perfume(ctx, "no-such-perfume"); !errors.As(err, &e) || e.Status != 404 || e.Code != "not_found" || e.RequestID == "" {
		t.Errorf("unknown slug: %#v", err)
	}
	zero := 0
	if _, err := c.Perfumes(ctx, &ListPerfumesParams{Limit: &zero}); !errors.As(err, &e) || e.Code != "invalid_parameter" ||
		len(e.Errors) == 0 || e.Errors[0].Parameter != "limit" {
		t.Errorf("limit=0: %#v", err)
	}
	limited, _ := New(base, WithKey(os.Getenv("FRAGRANCE_TEST_LIMITED_KEY")), WithRetries(0))
	var err error
	for range 2 { // one request a minute: the second at the latest is refused
		if _, err = limited.Brands(ctx, nil); err != nil {
			break
		}
	}
	if !errors.As(err, &e) || e.Status != 429 || e.Code != "rate_limited" || e.RetryAfter <= 0 {
		t.Errorf("past the limit: %#v", err)
	}
	nokey, _ := New(base, WithKey("fds_not-a-key"))
	if _, err := nokey.Brands(ctx, nil); !errors.As(err, &e) || e.Status != 401 {
		t.Errorf("a bad key: %#v", err)
	}
}

// TestSyncFullThenIncremental copies the whole catalogue through Sync,
// imports a file that changes a few perfumes, and syncs again from the
// cursor: exactly those come back, changed.
func TestSyncFullThenIncremental(t *testing.T) {
	c, _ := server(t)
	ctx := context.Background()
	local := map[string]string{}
	cursor, err := c.Sync(ctx, "", func(ch Change) error {
		if ch.Deleted {
			delete(local, ch.ID)
		} else {
			local[ch.ID] = ch.Perfume.Name
		}
		return nil
	})
	if err != nil || len(local) == 0 {
		t.Fatalf("full sync: %d perfumes, %v", len(local), err)
	}
	out, err := exec.Command(os.Getenv("FRAGRANCE_TEST_BIN"), "import", "--db", os.Getenv("FRAGRANCE_TEST_DB"), os.Getenv("FRAGRANCE_TEST_IMPORT")).CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	var changed []string
	next, err := c.Sync(ctx, cursor, func(ch Change) error {
		changed = append(changed, ch.ID)
		local[ch.ID] = ch.Perfume.Name
		return nil
	})
	want := strings.Split(os.Getenv("FRAGRANCE_TEST_CHANGED"), ",")
	if err != nil || next == cursor || strings.Join(changed, ",") != strings.Join(want, ",") {
		t.Fatalf("incremental sync: %v (cursor %q -> %q), %v; want %v", changed, cursor, next, err, want)
	}
	for _, slug := range want {
		if !strings.HasPrefix(local[slug], "Changed ") {
			t.Errorf("%s is %q in the local", slug, local[slug])
		}
	}
}
