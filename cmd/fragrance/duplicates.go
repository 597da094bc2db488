package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
)

// The developer accounts that share an address, spelled otherwise, made
// before addresses were folded into one account: the migration that folds
// them keeps them apart and disables them together; serve logs them at
// start-up, the dashboard lists them (/admin/accounts), and so does
// "fragrance admin duplicate-accounts".

// duplicateGroups are the accounts of each address that has several, as
// DuplicateAccounts lists them (by address, oldest first): the accounts of
// one address name one oldest (DuplicateOf, or their own ID for it).
func duplicateGroups(as []account.Account) [][]account.Account {
	var groups [][]account.Account
	for i, a := range as {
		if i == 0 || cmp.Or(a.DuplicateOf, a.ID) != cmp.Or(as[i-1].DuplicateOf, as[i-1].ID) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], a)
	}
	return groups
}

// logDuplicateAccounts says in the log which accounts share an address,
// one line each, by their numbers (an address is personal data). A store
// that cannot tell is said too; serving goes on either way.
func logDuplicateAccounts(ctx context.Context, store account.Store, log *slog.Logger) {
	as, err := store.DuplicateAccounts(ctx)
	if err != nil {
		log.Error("the accounts that share an address cannot be read", "err", err)
		return
	}
	for _, g := range duplicateGroups(as) {
		ids := make([]int64, len(g))
		for i, a := range g {
			ids[i] = a.ID
		}
		log.Warn("developer accounts share an address, spelled otherwise (made before addresses were folded): kept apart, disabled and enabled together; see /admin/accounts",
			"accounts", ids)
	}
}

func runAdminDuplicateAccounts(ctx context.Context, args []string, cio cmdIO) error {
	f := newAdminFlags("duplicate-accounts", "duplicate-accounts [--db PATH]\n\n"+
		"Lists the developer accounts that share an address, spelled otherwise: made before addresses\n"+
		"were folded into one account, they are kept apart, and disabled and enabled together.", cio, false)
	if _, done, err := f.parse(args); done {
		return err
	}
	store, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	as, err := store.DuplicateAccounts(ctx)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		fmt.Fprintln(cio.stdout, "no two accounts share an address")
		return nil
	}
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ACCOUNT\tEMAIL\tDUPLICATE OF\tSTATE\tCREATED")
	for _, a := range as {
		of, state := "-", "enabled"
		if a.DuplicateOf != 0 {
			of = fmt.Sprint(a.DuplicateOf)
		}
		if a.Disabled {
			state = "disabled"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", a.ID, a.Email, of, state, a.CreatedAt.UTC().Format(time.DateOnly))
	}
	return w.Flush()
}
