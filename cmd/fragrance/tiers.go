package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

func tiersCommands() []subcommand {
	return []subcommand{
		{"list", "list the tiers and their limits", runTiersList},
		{"set", "set a tier's per-minute and per-day limits", runTiersSet},
	}
}

// runTiers dispatches "fragrance tiers <command>".
func runTiers(ctx context.Context, args []string, cio cmdIO) error {
	return dispatch(ctx, "tiers", tiersCommands(), args, cio)
}

// seedTiers returns the tier limits serve starts with: the store's. A tier
// the store lacks (a new database, or one from before tiers were stored)
// is seeded from --tier-limits, or the contract's values. A tier named in
// --tier-limits whose stored limits differ gets a WARN naming both: the
// store wins, and `fragrance tiers set` changes it.
func seedTiers(ctx context.Context, store apikey.TierStore, flag string, log *slog.Logger) (apikey.Tiers, error) {
	seed, err := apikey.ParseTiers(flag, apikey.DefaultTiers())
	if err != nil {
		return nil, fmt.Errorf("--tier-limits: %w", err)
	}
	named, _ := apikey.ParseTiers(flag, nil)
	stored, err := store.SeedTierLimits(ctx, seed)
	if err != nil {
		return nil, fmt.Errorf("tier limits: %w", err)
	}
	tiers := stored.Complete(seed)
	for _, t := range apikey.AllTiers {
		if l, ok := named[t]; ok && tiers[t] != l {
			log.Warn("tier limits: --tier-limits differs from the store, which wins (change it with 'fragrance tiers set')",
				"tier", t, "flag", apikey.Tiers{t: l}.String(), "store", apikey.Tiers{t: tiers[t]}.String())
		}
	}
	log.Info("tier limits", "tiers", tiers.String())
	return tiers, nil
}

// storedTiers are the tier limits a command shows: the store's, with the
// contract's values for a tier not stored yet (a database no server has
// started on).
func storedTiers(ctx context.Context, store apikey.TierStore) (apikey.Tiers, apikey.Tiers, error) {
	stored, err := store.TierLimits(ctx)
	if err != nil {
		return nil, nil, err
	}
	return stored.Complete(apikey.DefaultTiers()), stored, nil
}

func runTiersList(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("tiers list", "tiers list [--db PATH]\n\n"+
		"Lists the tiers and the limits every server applies (a key's own limits take\n"+
		"precedence; see 'fragrance keys limits').", cio)
	db := f.DB()
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() > 0 {
		f.Usage()
		return errUsage
	}
	store, err := openExistingStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	tiers, stored, err := storedTiers(ctx, store)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIER\tPER MIN\tPER DAY\t")
	for _, t := range apikey.AllTiers {
		note := ""
		if _, ok := stored[t]; !ok {
			note = "(default: not stored yet; the first serve stores --tier-limits)"
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", t, tiers[t].PerMinute, tiers[t].PerDay, note)
	}
	return w.Flush()
}

func runTiersSet(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("tiers set", "tiers set [--db PATH] TIER [--per-minute N] [--per-day N]\n\n"+
		"Sets a tier's limits in the store; every running server applies them within\n"+
		"its --tier-refresh (10s by default). A number not given keeps its value.", cio)
	db := f.DB()
	perMinute := f.Int("per-minute", 0, "requests in any trailing 60 seconds (a positive whole number)")
	perDay := f.Int("per-day", 0, "requests in any trailing 24 hours (a positive whole number)")
	tierName, done, err := parseOneArg(f, args, "TIER")
	if done {
		return err
	}
	t, err := apikey.ParseTier(tierName)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	if env := cio.getenv(envName("per-minute")); env != "" {
		given["per-minute"] = true
	}
	if env := cio.getenv(envName("per-day")); env != "" {
		given["per-day"] = true
	}
	if !given["per-minute"] && !given["per-day"] {
		fmt.Fprintln(f.Output(), "give --per-minute, --per-day or both")
		f.Usage()
		return errUsage
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"per-minute", *perMinute}, {"per-day", *perDay}} {
		if given[n.name] && n.v <= 0 {
			return fmt.Errorf("--%s %d: want a positive whole number", n.name, n.v)
		}
	}
	store, err := openExistingStore(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	tiers, _, err := storedTiers(ctx, store)
	if err != nil {
		return err
	}
	l := tiers[t]
	if given["per-minute"] {
		l.PerMinute = int64(*perMinute)
	}
	if given["per-day"] {
		l.PerDay = int64(*perDay)
	}
	if err := store.SetTierLimits(ctx, t, l); err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "%s: %d per minute, %d per day\n", t, l.PerMinute, l.PerDay)
	fmt.Fprintln(cio.stderr, "Running servers apply it within their --tier-refresh (10s by default).")
	return nil
}
