package main

import (
	"fmt"
	"net/http"

	"github.com/fragrance-data/fragrance/internal/account"
	"github.com/fragrance-data/fragrance/internal/api"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/docs"
)

// docsFlags are the developer docs' flags (the pricing page's).
type docsFlags struct {
	tierPrices   *string
	contactEmail *string
}

// addDocsFlags adds the developer docs' flags to serve's.
func addDocsFlags(f *flags) docsFlags {
	return docsFlags{
		tierPrices:   f.String("tier-prices", "", "prices the pricing page shows, as tier=PRICE,... (e.g. basic=19 EUR/month,pro=99 EUR/month); a tier without one says to ask"),
		contactEmail: f.String("contact-email", "", "the operator's address for higher tiers, shown on the pricing page, and for appeals, shown by the developer portal to an account held by a suspended key"),
	}
}

// newDocs builds the developer docs, the playground and the pricing page
// on the ground, with the tiers as the limiter applies them and the image
// host's base URL; the playground offers the keys of the developer signed
// in (keys may be nil). terms learns whether prices are set, and tells the
// pricing page whether the bundled data is served (nil: never).
func newDocs(d docsFlags, ground *web.Ground, tiers func() apikey.Tiers, imageBase string, keys func(*http.Request) []web.KeyChoice, terms *dataTerms) (*docs.Docs, error) {
	prices, err := docs.ParsePrices(*d.tierPrices)
	if err != nil {
		return nil, fmt.Errorf("--tier-prices: %w", err)
	}
	var credit func() docs.Credit
	if terms != nil {
		terms.priced = len(prices) > 0
		credit = terms.credit
	}
	contact, err := contactEmail(*d.contactEmail)
	if err != nil {
		return nil, err
	}
	return docs.New(docs.Config{Web: ground, OpenAPI: api.OpenAPIDocument(), Tiers: tiers, Prices: prices,
		ContactEmail: contact, ImageBase: imageBase, Keys: keys, Credit: credit})
}

// contactEmail reads --contact-email: the operator's address, which the
// pricing page gives for higher tiers and the portal for appeals; "" for
// none.
func contactEmail(flag string) (string, error) {
	if flag == "" {
		return "", nil
	}
	contact, err := account.NormalizeEmail(flag)
	if err != nil {
		return "", fmt.Errorf("--contact-email: %w", err)
	}
	return contact, nil
}
