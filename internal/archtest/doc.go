// Package archtest holds no code: its tests enforce the import rules of
// the project's layout (docs/architecture.md) over every package's
// non-test files, that docs/architecture.md names every package, that no
// file but the refusal builder (internal/access/refusal.go) writes a 429,
// and that the patch bench/load/layers.sh builds with still applies to the
// tree.
package archtest
