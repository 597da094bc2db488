package main

import (
	"context"
	"fmt"
)

func runMigrate(ctx context.Context, args []string, cio cmdIO) error {
	f := newFlags("migrate", "migrate [--db PATH]\n\n"+
		"Creates the database if needed and applies every pending schema migration.\n"+
		"serve does the same at start-up; run this to migrate ahead of a deploy.", cio)
	dsn := f.DB()
	if done, err := f.parseOrHelp(args); done {
		return err
	}
	store, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer store.Close()
	v, err := store.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "schema at version %d\n", v)
	return nil
}
