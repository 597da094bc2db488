// Package archtest holds no code: its tests enforce the import rules of
// the project's layout (README, "Architecture") over every package's
// non-test files, that the README names every package, and that the
// patch bench/load/layers.sh builds with still applies to the tree.
package archtest
