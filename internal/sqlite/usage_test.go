package sqlite_test

import (
	"testing"

	"github.com/fragrance-data/fragrance/internal/access"
	"github.com/fragrance-data/fragrance/internal/storetest"
)

func TestUsageStoreContract(t *testing.T) {
	storetest.RunUsageStore(t, func(t *testing.T) access.UsageStore { return open(t) })
}
