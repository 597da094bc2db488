// Package archtest holds no code: its tests enforce the import rules of
// the project's layout (docs/architecture.md) over every package's
// non-test files, that docs/architecture.md names every package, and that the
// patch bench/load/layers.sh builds with still applies to the tree.
package archtest
