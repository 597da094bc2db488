package apikey_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

func TestTiersFor(t *testing.T) {
	ts := apikey.DefaultTiers()
	if err := ts.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  apikey.Key
		want apikey.Limits
	}{
		{apikey.Key{Tier: apikey.Free}, apikey.Limits{PerMinute: 60, PerDay: 1000}},
		{apikey.Key{Tier: apikey.Basic}, apikey.Limits{PerMinute: 300, PerDay: 25000}},
		{apikey.Key{Tier: apikey.Pro}, apikey.Limits{PerMinute: 1000, PerDay: 250000}},
		{apikey.Key{Tier: apikey.Enterprise}, apikey.Limits{PerMinute: 5000, PerDay: 5000000}},
		{apikey.Key{Tier: apikey.Enterprise, PerMinute: 1000, PerDay: 50}, apikey.Limits{PerMinute: 1000, PerDay: 50}},
		{apikey.Key{Tier: apikey.Free, PerDay: 10}, apikey.Limits{PerMinute: 60, PerDay: 10}},
		{apikey.Key{Tier: "gold"}, apikey.Limits{PerMinute: 60, PerDay: 1000}},
	} {
		if got := ts.For(tc.key); got != tc.want {
			t.Errorf("For(%+v) = %+v, want %+v", tc.key, got, tc.want)
		}
	}
}

func TestParseTiers(t *testing.T) {
	got, err := apikey.ParseTiers(" free=10/100, enterprise=9000/9000000 ", apikey.DefaultTiers())
	if err != nil {
		t.Fatal(err)
	}
	want := apikey.DefaultTiers()
	want[apikey.Free] = apikey.Limits{PerMinute: 10, PerDay: 100}
	want[apikey.Enterprise] = apikey.Limits{PerMinute: 9000, PerDay: 9000000}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if again, err := apikey.ParseTiers(got.String(), nil); err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("String does not round-trip: %v, %v", again, err)
	}
	for _, bad := range []string{"free", "free=1", "free=0/1", "gold=1/1", "free=a/b", "free=1/-1"} {
		if _, err := apikey.ParseTiers(bad, apikey.DefaultTiers()); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("ParseTiers(%q) = %v", bad, err)
		}
	}
}

func FuzzParseTiers(f *testing.F) {
	f.Add("free=60/1000,basic=300/25000")
	f.Add("pro=1/2,,")
	f.Add("=/")
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := apikey.ParseTiers(s, apikey.DefaultTiers())
		if err != nil {
			return
		}
		if err := ts.Validate(); err != nil {
			t.Fatalf("accepted %q but invalid: %v", s, err)
		}
		again, err := apikey.ParseTiers(ts.String(), nil)
		if err != nil || !reflect.DeepEqual(again, ts) {
			t.Fatalf("round trip of %q: %v, %v", s, again, err)
		}
	})
}

func TestParseOrigins(t *testing.T) {
	got, err := apikey.ParseOrigins("https://App.example.com/, http://localhost:3000")
	if err != nil || !reflect.DeepEqual(got, []string{"https://app.example.com", "http://localhost:3000"}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"example.com", "https://x.com/path", "https://x.com?q=1", "://"} {
		if _, err := apikey.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}

func TestTiersComplete(t *testing.T) {
	stored := apikey.Tiers{apikey.Free: {PerMinute: 5, PerDay: 10}}
	got := stored.Complete(apikey.DefaultTiers())
	want := apikey.DefaultTiers()
	want[apikey.Free] = apikey.Limits{PerMinute: 5, PerDay: 10}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Complete = %v, want %v", got, want)
	}
	if def := apikey.DefaultTiers(); def[apikey.Free].PerMinute != 60 {
		t.Fatal("Complete changed its base")
	}
	if got := apikey.Tiers(nil).Complete(nil); got == nil || len(got) != 0 {
		t.Fatalf("nil.Complete(nil) = %v, want an empty Tiers", got)
	}
}

func TestCheckTierLimits(t *testing.T) {
	if err := apikey.DefaultTiers().Check(); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []apikey.Tiers{
		{"gold": {PerMinute: 1, PerDay: 1}},
		{"FREE": {PerMinute: 1, PerDay: 1}},
		{apikey.Pro: {PerMinute: 0, PerDay: 1}},
		{apikey.Pro: {PerMinute: 1, PerDay: 0}},
	} {
		if err := ts.Check(); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("Check(%v) = %v, want ErrInvalid", ts, err)
		}
	}
}
