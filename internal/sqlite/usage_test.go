package sqlite_test

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/storetest"
	"github.com/fragrance-data/fragrance/internal/usage"
)

func TestUsageStoreContract(t *testing.T) {
	storetest.RunUsageStore(t, func(t *testing.T) usage.Store { return open(t) })
}
