// Package archtest holds no code: its test enforces the import rules of
// the project's layout (README, "Architecture") over every package's
// non-test files, and that the README names every package.
package archtest
