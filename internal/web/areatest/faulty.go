package areatest

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/sqlite"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// ErrDown is what a method told to fail answers: a store that cannot
// answer.
var ErrDown = errors.New("store unreachable")

// Faulty is the real store as an area sees it, meeting every contract the
// areas use, that can be told to fail some of its methods (Fail): for the
// tests of a store that is down. Each method passes to the SQLite store
// unless it is told to fail, and then answers an error wrapping ErrDown
// without touching the store.
type Faulty struct {
	t    testing.TB
	db   *sqlite.DB
	mu   sync.Mutex
	fail map[string]bool
}

var (
	_ account.Store = (*Faulty)(nil)
	_ apikey.Store  = (*Faulty)(nil)
	_ admin.Store   = (*Faulty)(nil)
	_ usage.Store   = (*Faulty)(nil)
)

// NewFaulty wraps db; nothing fails until Fail says so.
func NewFaulty(t testing.TB, db *sqlite.DB) *Faulty {
	return &Faulty{t: t, db: db, fail: map[string]bool{}}
}

// Fail makes the methods named fail from now on, and every other method
// pass (no name: none fails). A name that is not a method of Faulty fails
// the test: a test cannot believe it broke a method it misspelled.
func (f *Faulty) Fail(methods ...string) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = map[string]bool{}
	for _, m := range methods {
		if _, ok := reflect.TypeFor[*Faulty]().MethodByName(m); !ok {
			f.t.Fatalf("Fail(%q): the store has no such method", m)
		}
		f.fail[m] = true
	}
}

// fault is the error of method when it is told to fail, else nil.
func (f *Faulty) fault(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail[method] {
		return fmt.Errorf("%s: %w", method, ErrDown)
	}
	return nil
}

// pass is the answer of method: its error when it is told to fail, what
// do answers otherwise.
func pass[T any](f *Faulty, method string, do func() (T, error)) (T, error) {
	if err := f.fault(method); err != nil {
		var none T
		return none, err
	}
	return do()
}
