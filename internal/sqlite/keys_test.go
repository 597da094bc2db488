package sqlite_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestKeyStoreContract(t *testing.T) {
	storetest.RunKeyStore(t, func(t *testing.T, now func() time.Time) apikey.Store {
		db := open(t)
		db.SetClock(now)
		return db
	})
}
