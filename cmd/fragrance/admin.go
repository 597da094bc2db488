package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/catalog"
)

// hashPassword is admin.HashPassword, a variable so that this package's
// tests can make the hashes of the admins they create cheap (see TestMain).
var hashPassword = admin.HashPassword

func adminCommands() []subcommand {
	return []subcommand{
		{"create-user", "create an admin of the dashboard (prints a generated password once)", runAdminCreateUser},
		{"list-users", "list the admins", runAdminListUsers},
		{"disable-user", "disable an admin (signed out everywhere, cannot sign in)", adminStateCommand("disable-user", true)},
		{"enable-user", "let a disabled admin sign in again", adminStateCommand("enable-user", false)},
		{"reset-password", "give an admin a new password (signed out everywhere)", runAdminResetPassword},
		{"reset-totp", "remove an admin's second factor and recovery codes (they enrol again)", runAdminResetTOTP},
		{"duplicate-accounts", "list the developer accounts that share an address (made before addresses were folded)", runAdminDuplicateAccounts},
	}
}

// runAdmin dispatches "fragrance admin <command>".
func runAdmin(ctx context.Context, args []string, cio cmdIO) error {
	return dispatch(ctx, "admin", adminCommands(), args, cio)
}

// adminFlags are the flags the admin commands share: the database, the
// admin's email and the reason the audit log keeps.
type adminFlags struct {
	*flags
	db, email, reason *string
}

func newAdminFlags(name, usage string, cio cmdIO, withEmail bool) *adminFlags {
	f := newFlags("admin "+name, "admin "+usage, cio)
	af := &adminFlags{flags: f, db: f.DB()}
	if withEmail {
		af.email = f.String("email", "", "the admin's email address")
		af.reason = f.String("reason", "", "why, for the audit log")
	}
	return af
}

// parse parses the flags, refusing arguments and a missing or malformed
// --email; done reports that the command should return err at once.
func (f *adminFlags) parse(args []string) (email string, done bool, err error) {
	if done, err := f.parseOrHelp(args); done {
		return "", true, err
	}
	if f.NArg() > 0 {
		f.Usage()
		return "", true, errUsage
	}
	if f.email == nil {
		return "", false, nil
	}
	if *f.email == "" {
		fmt.Fprintln(f.Output(), "missing --email")
		f.Usage()
		return "", true, errUsage
	}
	email, err = account.NormalizeEmail(*f.email)
	return email, err != nil, err
}

// withUser is the body of the commands about one admin: it opens the
// store, finds the admin of email and runs fn.
func (f *adminFlags) withUser(ctx context.Context, email string, fn func(store backend, u admin.User) error) error {
	store, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	u, err := store.AdminUserByEmail(ctx, email)
	if errors.Is(err, catalog.ErrNotFound) {
		return fmt.Errorf("no admin has the email %s (see 'fragrance admin list-users')", email)
	}
	if err != nil {
		return err
	}
	return fn(store, u)
}

// audit writes what a command did to the audit log, done by "cli". The
// change is made by then: an entry that cannot be written is an error
// that says so.
func audit(ctx context.Context, store admin.Store, u admin.User, action, reason, detail string) error {
	_, err := store.AppendAudit(ctx, admin.AuditEntry{At: time.Now(), Actor: admin.ActorCLI, Action: action,
		Target: userTarget(u), Reason: reason, Detail: detail})
	if err != nil {
		return fmt.Errorf("done, but the audit log could not record it: %w", err)
	}
	return nil
}

// userTarget names an admin in the audit log.
func userTarget(u admin.User) string { return "user:" + strconv.FormatInt(u.ID, 10) }

// newPassword is the password a command sets: read from stdin when
// fromStdin (one line; checked against the rules), else generated, in
// which case generated reports that it must be shown.
func newPassword(cio cmdIO, fromStdin bool) (pw string, generated bool, err error) {
	if !fromStdin {
		return admin.GeneratePassword(), true, nil
	}
	b, err := io.ReadAll(io.LimitReader(cio.stdin, admin.MaxPasswordLength+3))
	if err != nil {
		return "", false, fmt.Errorf("read the password from standard input: %w", err)
	}
	b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
	if bytes.ContainsAny(b, "\r\n") {
		return "", false, errors.New("--password-stdin: give the password alone on one line")
	}
	if err := admin.CheckNewPassword(string(b)); err != nil {
		return "", false, fmt.Errorf("--password-stdin: %w", err)
	}
	return string(b), false, nil
}

// showPassword prints a generated password alone on the last line of
// standard output, once.
func showPassword(cio cmdIO, pw string) {
	fmt.Fprintln(cio.stderr, "Store this password now: it is shown only once.")
	fmt.Fprintln(cio.stdout, pw)
}

func runAdminCreateUser(ctx context.Context, args []string, cio cmdIO) error {
	f := newAdminFlags("create-user", "create-user [--db PATH] --email EMAIL [--password-stdin] [--reason TEXT]\n\n"+
		"Creates an admin of the dashboard. Without --password-stdin a password is generated and\n"+
		fmt.Sprintf("printed alone on the last line of standard output, once. A password has at least %d characters.", admin.MinPasswordLength), cio, true)
	fromStdin := f.Bool("password-stdin", false, "read the password from standard input (one line)")
	email, done, err := f.parse(args)
	if done {
		return err
	}
	pw, generated, err := newPassword(cio, *fromStdin)
	if err != nil {
		return err
	}
	store, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	hash, err := hashPassword(pw)
	if err != nil {
		return err
	}
	u, err := store.CreateAdminUser(ctx, admin.User{Email: email, PasswordHash: hash})
	if errors.Is(err, catalog.ErrInvalid) {
		if _, lookErr := store.AdminUserByEmail(ctx, email); lookErr == nil {
			return fmt.Errorf("%s is an admin already (reset its password with 'fragrance admin reset-password')", email)
		}
	}
	if err != nil {
		return err
	}
	if err := audit(ctx, store, u, "user.create", *f.reason, u.Email); err != nil {
		return err
	}
	fmt.Fprintf(cio.stdout, "admin %d: %s\n", u.ID, u.Email)
	if generated {
		showPassword(cio, pw)
	}
	return nil
}

func runAdminListUsers(ctx context.Context, args []string, cio cmdIO) error {
	f := newAdminFlags("list-users", "list-users [--db PATH]", cio, false)
	if _, done, err := f.parse(args); done {
		return err
	}
	store, err := openExistingStore(ctx, *f.db)
	if err != nil {
		return err
	}
	defer store.Close()
	users, err := store.ListAdminUsers(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cio.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tEMAIL\tSTATE\tSECOND FACTOR\tRECOVERY CODES\tCREATED\tCHANGED")
	for _, u := range users {
		state, factor := "enabled", "-"
		if u.Disabled {
			state = "disabled"
		}
		if u.TOTPSecret != "" {
			factor = "TOTP"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", u.ID, u.Email, state, factor, len(u.RecoveryHashes),
			u.CreatedAt.UTC().Format(time.DateOnly), u.UpdatedAt.UTC().Format("2006-01-02T15:04Z"))
	}
	return w.Flush()
}

// adminStateCommand returns the command that disables (or enables) an admin.
func adminStateCommand(name string, disable bool) func(context.Context, []string, cmdIO) error {
	return func(ctx context.Context, args []string, cio cmdIO) error {
		f := newAdminFlags(name, name+" [--db PATH] --email EMAIL [--reason TEXT]", cio, true)
		email, done, err := f.parse(args)
		if done {
			return err
		}
		state, action := "disabled", "user.disable"
		if !disable {
			state, action = "enabled", "user.enable"
		}
		return f.withUser(ctx, email, func(store backend, u admin.User) error {
			if u.Disabled == disable {
				fmt.Fprintf(cio.stdout, "%s: %s already\n", u.Email, state)
				return nil
			}
			u.Disabled = disable
			if _, err := store.UpdateAdminUser(ctx, u); err != nil {
				return err
			}
			if err := audit(ctx, store, u, action, *f.reason, u.Email); err != nil {
				return err
			}
			fmt.Fprintf(cio.stdout, "%s: %s\n", u.Email, state)
			return nil
		})
	}
}

func runAdminResetPassword(ctx context.Context, args []string, cio cmdIO) error {
	f := newAdminFlags("reset-password", "reset-password [--db PATH] --email EMAIL [--password-stdin] [--reason TEXT]\n\n"+
		"Gives the admin a new password and ends its sessions; its second factor stays. Without\n"+
		"--password-stdin the new password is generated and printed alone on the last line of\n"+
		"standard output, once.", cio, true)
	fromStdin := f.Bool("password-stdin", false, "read the password from standard input (one line)")
	email, done, err := f.parse(args)
	if done {
		return err
	}
	pw, generated, err := newPassword(cio, *fromStdin)
	if err != nil {
		return err
	}
	hash, err := hashPassword(pw)
	if err != nil {
		return err
	}
	return f.withUser(ctx, email, func(store backend, u admin.User) error {
		u.PasswordHash = hash
		if _, err := store.UpdateAdminUser(ctx, u); err != nil {
			return err
		}
		if err := audit(ctx, store, u, "user.password_reset", *f.reason, u.Email); err != nil {
			return err
		}
		fmt.Fprintf(cio.stdout, "%s: new password set, signed out everywhere\n", u.Email)
		if generated {
			showPassword(cio, pw)
		}
		return nil
	})
}

func runAdminResetTOTP(ctx context.Context, args []string, cio cmdIO) error {
	f := newAdminFlags("reset-totp", "reset-totp [--db PATH] --email EMAIL [--reason TEXT]\n\n"+
		"Removes the admin's second factor and recovery codes (a lost phone): the admin signs\n"+
		"in with the password alone and enrols again.", cio, true)
	email, done, err := f.parse(args)
	if done {
		return err
	}
	return f.withUser(ctx, email, func(store backend, u admin.User) error {
		if u.TOTPSecret == "" && len(u.RecoveryHashes) == 0 {
			fmt.Fprintf(cio.stdout, "%s: no second factor to remove\n", u.Email)
			return nil
		}
		u.TOTPSecret, u.RecoveryHashes = "", nil
		if _, err := store.UpdateAdminUser(ctx, u); err != nil {
			return err
		}
		if err := audit(ctx, store, u, "user.totp_reset", *f.reason, u.Email); err != nil {
			return err
		}
		fmt.Fprintf(cio.stdout, "%s: second factor and recovery codes removed\n", u.Email)
		return nil
	})
}
