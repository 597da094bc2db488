package sqlite_test

import (
	"testing"
	"time"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestKeyStoreContract(t *testing.T) {
	storetest.RunKeyStore(t, func(t *testing.T, now func() time.Time) access.KeyStore {
		db := open(t)
		db.SetClock(now)
		return db
	})
}
