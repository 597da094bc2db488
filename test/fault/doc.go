// Package fault holds no code: its tests run the real fragrance binary
// through what an unlucky day does to it (PostgreSQL connections cut,
// Redis killed, a database that cannot be written, a full disk, kill -9
// during an import and during a usage flush) and check after each that
// nothing is corrupted, no admitted request goes uncounted beyond the
// usage flush interval, authentication stays closed while the key store
// is unknown, and the service recovers without a restart.
//
// The tests run only with FRAGRANCE_TEST_FAULT=1 (CI sets it); they build
// the binary once, start their own Redis, mount a small tmpfs (as root)
// and use FRAGRANCE_TEST_POSTGRES for a schema of their own.
package fault
