package docs

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/apikey"
)

// Prices are the operator's prices of the tiers, as the pricing page
// shows them ("19 EUR/month"). The service invents none: a tier without a
// price says to ask.
type Prices map[apikey.Tier]string

// maxPrice bounds one price's text, in characters.
const maxPrice = 40

// ParsePrices reads --tier-prices: comma-separated TIER=PRICE items, the
// price free text without commas ("basic=19 EUR/month,pro=99 EUR/month").
// The empty string is no prices. An unknown tier, an item without "=", an
// empty or over-long price, a control character or a tier priced twice is
// an error that names the item.
func ParsePrices(spec string) (Prices, error) {
	out := Prices{}
	if !utf8.ValidString(spec) {
		return nil, fmt.Errorf("tier prices: not valid UTF-8")
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, price, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("tier prices: %q is not TIER=PRICE (e.g. basic=19 EUR/month)", item)
		}
		t, err := apikey.ParseTier(name)
		if err != nil {
			return nil, fmt.Errorf("tier prices: %q: unknown tier %q (want free, basic, pro or enterprise)", item, strings.TrimSpace(name))
		}
		price = strings.TrimSpace(price)
		switch {
		case price == "":
			return nil, fmt.Errorf("tier prices: %q: no price after =", item)
		case utf8.RuneCountInString(price) > maxPrice:
			return nil, fmt.Errorf("tier prices: %q: a price has at most %d characters", item, maxPrice)
		case strings.IndexFunc(price, unicode.IsControl) >= 0:
			return nil, fmt.Errorf("tier prices: %q: a price has no control characters", item)
		}
		if _, dup := out[t]; dup {
			return nil, fmt.Errorf("tier prices: %s is priced twice", t)
		}
		out[t] = price
	}
	return out, nil
}

// tierRow is one tier as the pricing page shows it.
type tierRow struct {
	Tier      apikey.Tier
	Name      string
	PerMinute int64
	PerDay    int64
	// Price is the operator's price, "" when none was given.
	Price string
}

// tierRows are the tiers, smallest first, with their limits in force and
// their prices.
func (d *Docs) tierRows() []tierRow {
	tiers := d.tiers()
	rows := make([]tierRow, 0, len(apikey.AllTiers))
	for _, t := range apikey.AllTiers {
		l := tiers[t]
		rows = append(rows, tierRow{Tier: t, Name: tierName(t), PerMinute: l.PerMinute, PerDay: l.PerDay, Price: d.prices[t]})
	}
	return rows
}

// tierName is a tier's name as a heading: "free" is "Free".
func tierName(t apikey.Tier) string {
	s := string(t)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
