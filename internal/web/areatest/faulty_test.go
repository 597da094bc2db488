package areatest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// TestEveryMethodFailsByItsName: each method of the contracts, told to
// fail by its own name, answers ErrDown, and no other does.
func TestEveryMethodFailsByItsName(t *testing.T) {
	e := New(t, "http://areas.test", time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), "session", "192.0.2.1")
	f := reflect.ValueOf(e.Faults)
	var names []string
	for _, c := range []reflect.Type{reflect.TypeFor[account.Store](), reflect.TypeFor[apikey.Store](), reflect.TypeFor[admin.Store](), reflect.TypeFor[usage.Store]()} {
		for i := range c.NumMethod() {
			names = append(names, c.Method(i).Name)
		}
	}
	call := func(name string) error {
		m := f.MethodByName(name)
		args := []reflect.Value{reflect.ValueOf(context.Background())}
		for i := 1; i < m.Type().NumIn(); i++ {
			args = append(args, reflect.Zero(m.Type().In(i)))
		}
		out := m.Call(args)
		err, _ := out[len(out)-1].Interface().(error)
		return err
	}
	for _, name := range names {
		e.Faults.Fail(name)
		if err := call(name); !errors.Is(err, ErrDown) {
			t.Errorf("%s told to fail: %v, want ErrDown", name, err)
		}
		for _, other := range []string{"ListKeys", "ListAccounts"} {
			if other != name {
				if err := call(other); err != nil {
					t.Errorf("%s while %s fails: %v", other, name, err)
				}
			}
		}
	}
	e.Faults.Fail()
	if err := call("ListAdminUsers"); err != nil {
		t.Errorf("after Fail(): %v", err)
	}
}
