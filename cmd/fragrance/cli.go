package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// errUsage reports a command line that could not be parsed; the usage text
// has already been printed.
var errUsage = errors.New("usage")

// exitCode maps an error to the process exit status: 2 for usage errors.
func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

// command is one subcommand of fragrance.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, io cmdIO) error
}

// commands lists the subcommands; each lives in its own file.
func commands() []command {
	cmds := []command{
		{"serve", "start the HTTP service", runServe},
		{"admin", "create, list, disable and reset the admin dashboard's users", runAdmin},
		{"import", "import a catalogue file (JSON Lines or FragDB) into the store", runImport},
		{"export", "write the perfumes changed since a cursor (JSON Lines or CSV), and the next cursor", runExport},
		{"generate", "write a synthetic catalogue (JSON Lines) drawn from the real one", runGenerate},
		{"mcp", "serve the MCP server (Model Context Protocol) over stdio, read-only", runMCP},
		{"migrate", "apply pending schema migrations and exit", runMigrate},
		{"version", "print the version", runVersion},
		{"keys", "create, list, revoke, suspend and resume API keys; show usage", runKeys},
		{"images", "import bottle photos and make transparent-background images", runImages},
		{"eval", "print the relevance scores of search and dupes on the evaluation sets", runEval},
		{"backup", "copy a SQLite database to a file while it is in use, and check the copy", runBackup},
		{"tiers", "list the tiers' limits and set them (every server applies them within seconds)", runTiers},
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	return cmds
}

// run is the whole program: main only calls it, and tests call it with
// their own arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cio := cmdIO{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printUsage(cio.stderr)
		return errUsage
	}
	if isHelp(args[0]) {
		printUsage(cio.stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], cio)
		}
	}
	fmt.Fprintf(stderr, "fragrance: unknown command %q\n\n", args[0])
	printUsage(stderr)
	return errUsage
}

// isHelp reports an argument that asks for help. Help asked for goes to
// standard output with exit status 0; usage after a mistake goes to
// standard error with exit status 2.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: fragrance <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'fragrance <command> --help' for the flags of a command.")
}

// flags is a FlagSet whose flags fall back to environment variables, so
// every flag --foo-bar has an equivalent FRAGRANCE_FOO_BAR.
type flags struct {
	*flag.FlagSet
	getenv         env
	stdout, stderr io.Writer
	errs           []error
}

// newFlags returns the flag set of a subcommand.
func newFlags(name, usage string, cio cmdIO) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(cio.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: fragrance %s\n\n", usage)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nEvery flag can also be set by its environment variable, shown in brackets.")
	}
	return &flags{FlagSet: fs, getenv: cio.getenv, stdout: cio.stdout, stderr: cio.stderr}
}

// envName is the environment variable of a flag: FRAGRANCE_ + upper snake case.
func envName(flagName string) string {
	return "FRAGRANCE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// String defines a string flag with an environment fallback.
func (f *flags) String(name, def, usage string) *string {
	if v := f.getenv(envName(name)); v != "" {
		def = v
	}
	return f.FlagSet.String(name, def, usage+" ["+envName(name)+"]")
}

// DB defines --db, the database every command but eval opens by default.
func (f *flags) DB() *string {
	return f.String("db", "fragrance.db", "database: a SQLite file path or a postgres:// URL")
}

// Int defines an int flag with an environment fallback.
func (f *flags) Int(name string, def int, usage string) *int {
	if v := f.getenv(envName(name)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: not a whole number", envName(name), v))
		}
		def = n
	}
	return f.FlagSet.Int(name, def, usage+" ["+envName(name)+"]")
}

// Bool defines a bool flag with an environment fallback.
func (f *flags) Bool(name string, def bool, usage string) *bool {
	if v := f.getenv(envName(name)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: not true or false", envName(name), v))
		}
		def = b
	}
	return f.FlagSet.Bool(name, def, usage+" ["+envName(name)+"]")
}

// Duration defines a duration flag with an environment fallback.
func (f *flags) Duration(name string, def time.Duration, usage string) *time.Duration {
	if v := f.getenv(envName(name)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: not a duration such as 30s", envName(name), v))
		}
		def = d
	}
	return f.FlagSet.Duration(name, def, usage+" ["+envName(name)+"]")
}

// parse parses args; --help prints usage and returns errHelp, which callers
// turn into a clean exit.
func (f *flags) parse(args []string) error {
	// What the flag package prints (the usage, after an error message) goes
	// to standard output when help was asked for, else to standard error.
	var out bytes.Buffer
	f.SetOutput(&out)
	err := f.FlagSet.Parse(args)
	f.SetOutput(f.stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.stdout.Write(out.Bytes())
			return errHelp
		}
		f.stderr.Write(out.Bytes())
		return errUsage
	}
	if len(f.errs) > 0 {
		return errors.Join(f.errs...)
	}
	return nil
}

// errHelp is returned by parse after --help; subcommands return nil for it.
var errHelp = errors.New("help requested")

// parseOrHelp is the common start of a subcommand: done reports that the
// command should return err immediately (nil after --help).
func (f *flags) parseOrHelp(args []string) (done bool, err error) {
	err = f.parse(args)
	if errors.Is(err, errHelp) {
		return true, nil
	}
	return err != nil, err
}

// subcommand is one command of a group such as "fragrance keys".
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, cio cmdIO) error
}

// dispatch runs the subcommand of group named by args[0], or prints the
// group's usage for no argument (a usage error) or --help.
func dispatch(ctx context.Context, group string, cmds []subcommand, args []string, cio cmdIO) error {
	if len(args) == 0 || isHelp(args[0]) {
		w := cio.stdout
		if len(args) == 0 {
			w = cio.stderr
		}
		fmt.Fprintf(w, "Usage: fragrance %s <command> [flags]\n\nCommands:\n", group)
		width := 8
		for _, c := range cmds {
			width = max(width, len(c.name))
		}
		for _, c := range cmds {
			fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
		}
		fmt.Fprintf(w, "\nRun 'fragrance %s <command> --help' for its flags.\n", group)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.run(ctx, args[1:], cio)
		}
	}
	fmt.Fprintf(cio.stderr, "fragrance %s: unknown command %q (try 'fragrance %s --help')\n", group, args[0], group)
	return errUsage
}

// parseOneArg parses flags that may stand before or after the one
// argument a command takes (named name in messages), and returns it.
func parseOneArg(f *flags, args []string, name string) (arg string, done bool, err error) {
	if done, err := f.parseOrHelp(args); done {
		return "", true, err
	}
	rest := f.Args()
	if len(rest) == 0 {
		fmt.Fprintln(f.Output(), "missing "+name)
		f.Usage()
		return "", true, errUsage
	}
	if len(rest) > 1 {
		if done, err := f.parseOrHelp(rest[1:]); done {
			return "", true, err
		}
		if f.NArg() > 0 {
			f.Usage()
			return "", true, errUsage
		}
	}
	return rest[0], false, nil
}
