package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/meter"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/usage"
)

func keysCommands() []subcommand {
	return []subcommand{
		{"create", "create a key and print it (shown once)", runKeysCreate},
		{"list", "list the keys", runKeysList},
		{"revoke", "revoke a key for good", stateCommand("revoke", apikey.Revoked)},
		{"suspend", "suspend a key (it answers 403 until resumed)", stateCommand("suspend", apikey.Suspended)},
		{"resume", "make a suspended key active again", stateCommand("resume", apikey.Active)},
		{"limits", "set or clear a key's own per-minute and per-day limits", runKeysLimits},
		{"usage", "show a key's usage per day and endpoint", runKeysUsage},
		{"signals", "list recent abuse signals", runKeysSignals},
	}
}

// runKeys dispatches "fragrance keys <command>".
func runKeys(ctx context.Context, args []string, cio cmdIO) error {
	return dispatch(ctx, "keys", keysCommands(), args, cio)
}

// keyFlags are the flags every keys command shares.
type keyFlags struct {
	*flags
	db *string
	// check, when set, validates the parsed flags before the store is
	// opened.
	check func() error
}

func newKeyFlags(name, usage string, cio cmdIO) *keyFlags {
	f := newFlags("keys "+name, "keys "+usage, cio)
	return &keyFlags{flags: f, db: f.DB()}
}

// parseWithPrefix parses flags that may stand before or after the one
// KEYPREFIX argument, and returns the prefix in stored form.
func (f *keyFlags) parseWithPrefix(args []string) (prefix string, done bool, err error) {
	arg, done, err := parseOneArg(f.flags, args, "KEYPREFIX")
	if done {
		return "", true, err
	}
	p, err := apikey.NormalizePrefix(arg)
	return p, err != nil, err
}

// open opens the store and reads the tier limits the servers apply, for
// the commands that print keys with their limits.
func (f *keyFlags) open(ctx context.Context) (backend, apikey.Tiers, error) {
	store, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return nil, nil, err
	}
	tiers, _, err := storedTiers(ctx, store)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return store, tiers, nil
}

func runKeysCreate(ctx context.Context, args []string, cio cmdIO) error {
	f := newKeyFlags("create", "create --db PATH --tier TIER --email EMAIL [--name NAME] [--per-minute N] [--per-day N] [--origins URL,...]\n\n"+
		"Creates a key and prints it alone on the last line of standard output. Only its hash\n"+
		"is stored: it cannot be shown again.", cio)
	tier := f.String("tier", "free", "tier: free, basic, pro or enterprise")
	email := f.String("email", "", "email address of the key's owner")
	name := f.String("name", "", "a name for the key, e.g. the application using it")
	perMinute := f.Int("per-minute", 0, "the key's own per-minute limit (0: the tier's)")
	perDay := f.Int("per-day", 0, "the key's own per-day limit (0: the tier's)")
	origins := f.String("origins", "", "comma-separated browser origins allowed to use the key (empty: any)")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	if f.NArg() > 0 {
		f.Usage()
		return errUsage
	}
	t, err := apikey.ParseTier(*tier)
	if err != nil {
		return err
	}
	allowed, err := apikey.ParseOrigins(*origins)
	if err != nil {
		return err
	}
	store, tiers, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	k, secret, err := apikey.Issue(ctx, store, apikey.NewKey{
		Name: *name, Email: *email, Tier: t, PerMinute: int64(*perMinute), PerDay: int64(*perDay), Origins: allowed,
	})
	if err != nil {
		return err
	}
	printKey(cio, k, tiers)
	fmt.Fprintln(cio.stderr, "Store this key now: it is shown only once.")
	fmt.Fprintln(cio.stdout, secret)
	return nil
}

// printKey writes a key's details, one "name: value" per line.
func printKey(cio cmdIO, k apikey.Key, tiers apikey.Tiers) {
	l := tiers.For(k)
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 1, ' ', 0)
	fmt.Fprintf(w, "prefix:\t%s\n", k.Prefix)
	fmt.Fprintf(w, "tier:\t%s\n", k.Tier)
	fmt.Fprintf(w, "state:\t%s\n", k.State)
	fmt.Fprintf(w, "per minute:\t%d%s\n", l.PerMinute, overrideNote(k.PerMinute))
	fmt.Fprintf(w, "per day:\t%d%s\n", l.PerDay, overrideNote(k.PerDay))
	if k.Name != "" {
		fmt.Fprintf(w, "name:\t%s\n", k.Name)
	}
	if k.Email != "" {
		fmt.Fprintf(w, "email:\t%s\n", k.Email)
	}
	origins := "any"
	if len(k.Origins) > 0 {
		origins = strings.Join(k.Origins, ", ")
	}
	fmt.Fprintf(w, "origins:\t%s\n", origins)
	w.Flush()
}

func overrideNote(v int64) string {
	if v > 0 {
		return " (key's own)"
	}
	return " (tier default)"
}

func runKeysList(ctx context.Context, args []string, cio cmdIO) error {
	f := newKeyFlags("list", "list --db PATH", cio)
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	store, tiers, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	keys, err := store.ListKeys(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PREFIX\tTIER\tSTATE\tPER MIN\tPER DAY\tCREATED\tACCOUNT\tEXPIRES\tEMAIL\tNAME")
	now := time.Now()
	for _, k := range keys {
		l := tiers.For(k)
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", k.Prefix, k.Tier, k.State, l.PerMinute, l.PerDay,
			k.CreatedAt.Format(time.DateOnly), accountCell(k.AccountID), expiryCell(k, now), k.Email, k.Name)
	}
	return w.Flush()
}

// accountCell is a key's portal account in the list: "-" for a key an
// operator made.
func accountCell(id int64) string {
	if id == 0 {
		return "-"
	}
	return strconv.FormatInt(id, 10)
}

// expiryCell is when a key stops working, in UTC to the minute, marked
// once it has: "-" for a key that never expires.
func expiryCell(k apikey.Key, now time.Time) string {
	if k.ExpiresAt.IsZero() {
		return "-"
	}
	s := k.ExpiresAt.UTC().Format("2006-01-02T15:04Z")
	if k.Expired(now) {
		s += " (expired)"
	}
	return s
}

// stateCommand returns the command that moves a key to state to.
func stateCommand(verb string, to apikey.State) func(context.Context, []string, cmdIO) error {
	return func(ctx context.Context, args []string, cio cmdIO) error {
		f := newKeyFlags(verb, verb+" [--db PATH] KEYPREFIX", cio)
		return f.withKey(ctx, args, func(store backend, _ apikey.Tiers, prefix string) error {
			k, err := store.SetKeyState(ctx, prefix, to)
			if err != nil {
				return keyError(prefix, err)
			}
			fmt.Fprintf(cio.stdout, "%s: %s\n", k.Prefix, k.State)
			return nil
		})
	}
}

// withKey is the common body of the commands about one key: it parses the
// flags and the KEYPREFIX argument, opens the store and runs fn.
func (f *keyFlags) withKey(ctx context.Context, args []string, fn func(store backend, tiers apikey.Tiers, prefix string) error) error {
	prefix, done, err := f.parseWithPrefix(args)
	if done {
		return err
	}
	if f.check != nil {
		if err := f.check(); err != nil {
			return err
		}
	}
	store, tiers, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store, tiers, prefix)
}

// keyError turns a store error about one key into a message for people.
func keyError(prefix string, err error) error {
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return fmt.Errorf("no key has the prefix %s", prefix)
	case errors.Is(err, apikey.ErrRevoked):
		return fmt.Errorf("%s is revoked, which is final; create a new key instead", prefix)
	}
	return err
}

func runKeysLimits(ctx context.Context, args []string, cio cmdIO) error {
	f := newKeyFlags("limits", "limits [--db PATH] [--per-minute N] [--per-day N] KEYPREFIX\n\n"+
		"Sets the key's own limits; 0 returns a number to the tier's default.", cio)
	perMinute := f.Int("per-minute", 0, "the key's own per-minute limit (0: the tier's)")
	perDay := f.Int("per-day", 0, "the key's own per-day limit (0: the tier's)")
	return f.withKey(ctx, args, func(store backend, tiers apikey.Tiers, prefix string) error {
		k, err := store.SetKeyLimits(ctx, prefix, int64(*perMinute), int64(*perDay))
		if err != nil {
			return keyError(prefix, err)
		}
		printKey(cio, k, tiers)
		return nil
	})
}

func runKeysUsage(ctx context.Context, args []string, cio cmdIO) error {
	f := newKeyFlags("usage", "usage [--db PATH] [--days N] KEYPREFIX\n\n"+
		"Shows the key's requests per day (UTC), status class and endpoint. A running\n"+
		"server writes its counts every few seconds.", cio)
	days := f.Int("days", 7, fmt.Sprintf("number of days, today included (at most %d)", usage.MaxReportDays))
	f.check = func() error {
		if *days < 1 || *days > usage.MaxReportDays {
			return fmt.Errorf("--days %d: want 1 to %d", *days, usage.MaxReportDays)
		}
		return nil
	}
	return f.withKey(ctx, args, func(store backend, tiers apikey.Tiers, prefix string) error {
		k, err := store.KeyByPrefix(ctx, prefix)
		if err != nil {
			return keyError(prefix, err)
		}
		rep, err := meter.BuildReport(ctx, store, prefix, time.Now(), *days, nil)
		if err != nil {
			return err
		}
		printKey(cio, k, tiers)
		printKeyUsage(cio, rep)
		return nil
	})
}

func printKeyUsage(cio cmdIO, rep usage.Report) {
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "\ntoday (%s):\t%d requests\t%s\n", rep.Today.Date, rep.Today.Requests, formatCounts(rep.Today.ByStatus))
	fmt.Fprintln(w, "\nDAY\tREQUESTS\tBY STATUS")
	for _, d := range rep.Days {
		fmt.Fprintf(w, "%s\t%d\t%s\n", d.Date, d.Requests, formatCounts(d.ByStatus))
	}
	fmt.Fprintf(w, "total\t%d\t\n", rep.Total)
	fmt.Fprintln(w, "\nENDPOINT\tREQUESTS\t")
	for _, e := range sortedCounts(rep.Endpoints) {
		fmt.Fprintf(w, "%s\t%d\t\n", e.name, e.n)
	}
	w.Flush()
}

type namedCount struct {
	name string
	n    int64
}

// sortedCounts orders counts by number, then name.
func sortedCounts(m map[string]int64) []namedCount {
	out := make([]namedCount, 0, len(m))
	for k, v := range m {
		out = append(out, namedCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].name < out[j].name
	})
	return out
}

func formatCounts(m map[string]int64) string {
	var parts []string
	for _, c := range sortedCounts(m) {
		parts = append(parts, fmt.Sprintf("%s %d", c.name, c.n))
	}
	return strings.Join(parts, ", ")
}

func runKeysSignals(ctx context.Context, args []string, cio cmdIO) error {
	f := newKeyFlags("signals", "signals [--db PATH] [--since 24h] [--limit N]", cio)
	since := f.Duration("since", 24*time.Hour, "how far back to look")
	limit := f.Int("limit", 100, "at most this many signals, newest first")
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	store, _, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	sigs, err := store.Signals(ctx, time.Now().Add(-*since), *limit)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "AT\tKIND\tKEY\tCLIENT IP\tDETAIL")
	for _, s := range sigs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.At.Format(time.RFC3339), s.Kind, s.KeyPrefix, s.ClientIP, s.Detail)
	}
	return w.Flush()
}
