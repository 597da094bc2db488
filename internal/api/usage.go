package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/fragrance-data/fragrance/internal/access/ratelimit"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/catalog"
	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// usageAnswer is the body of GET /api/usage.
type usageAnswer struct {
	Key struct {
		Prefix    string       `json:"prefix"`
		Name      string       `json:"name,omitempty"`
		Tier      apikey.Tier  `json:"tier"`
		State     apikey.State `json:"state"`
		CreatedAt time.Time    `json:"createdAt"`
	} `json:"key"`
	Limits    apikey.Limits    `json:"limits"`
	Remaining map[string]int64 `json:"remaining"`
	Reset     map[string]int64 `json:"resetSeconds"`
	Usage     usage.Report     `json:"usage"`
}

// usageDefaultDays is how many days /api/usage reports by default.
const usageDefaultDays = 7

// getUsage is GET /api/usage?days=: the calling key's tier, limits, what is
// left of each window (this request not counted: it has a budget of its
// own, see access.Guard.WrapUsage) and its usage per day (days
// default 7, clamped to usage.MaxReportDays), including this replica's
// counts not yet written.
func (a *API) getUsage(w http.ResponseWriter, r *http.Request) error {
	p := newParams(r.URL)
	days := min(p.Positive("days", usageDefaultDays), usage.MaxReportDays)
	if err := p.err(); err != nil {
		return err
	}
	key, decision, limits, ok := a.cfg.Caller.Caller(r.Context())
	if !ok { // only a route mounted without the Guard gets here
		problem.Write(w, r, problem.Of(problem.MissingAPIKey,
			"/api/usage reports the usage of the key the request is made with."))
		return nil
	}
	rep, err := a.cfg.Usage.Report(r.Context(), key.Prefix, days)
	if err != nil { // the usage store cannot be read
		return fmt.Errorf("%w: %w", catalog.ErrUnavailable, err)
	}
	var out usageAnswer
	out.Key.Prefix, out.Key.Name, out.Key.Tier, out.Key.State, out.Key.CreatedAt = key.Prefix, key.Name, key.Tier, key.State, key.CreatedAt
	out.Limits = limits
	out.Remaining, out.Reset = map[string]int64{}, map[string]int64{}
	for _, w := range decision.Windows() {
		out.Remaining[w.Policy] = w.Remaining
		out.Reset[w.Policy] = ratelimit.CeilSeconds(w.Reset)
	}
	out.Usage = rep
	return writeJSON(w, r, out)
}
