package access

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/problem"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// DayUsage is one UTC day of a key's requests.
type DayUsage struct {
	Date       string           `json:"date"`
	Requests   int64            `json:"requests"`
	ByStatus   map[string]int64 `json:"byStatus"`
	ByEndpoint map[string]int64 `json:"byEndpoint"`
}

// UsageReport is a key's usage over the last days, today included.
type UsageReport struct {
	KeyPrefix string `json:"keyPrefix"`
	// Today is the last element of Days.
	Today DayUsage `json:"today"`
	// Days are oldest first, one per day, with zero days included.
	Days []DayUsage `json:"days"`
	// Endpoints totals the requests per endpoint over Days.
	Endpoints map[string]int64 `json:"endpoints"`
	// Total is the number of requests over Days.
	Total int64 `json:"total"`
}

// MaxReportDays bounds a usage report.
const MaxReportDays = 90

// BuildUsageReport reads the usage of the key prefix for the days UTC
// days ending with today (now's day), adding extra counts not yet stored
// (the meter's pending ones). days is clamped to 1..MaxReportDays.
func BuildUsageReport(ctx context.Context, store usage.Store, prefix string, now time.Time, days int, extra []usage.Count) (UsageReport, error) {
	days = min(max(days, 1), MaxReportDays)
	today := now.UTC().Truncate(24 * time.Hour)
	from := today.AddDate(0, 0, -(days - 1))
	rows, err := store.DailyUsage(ctx, prefix, from, today.AddDate(0, 0, 1))
	if err != nil {
		return UsageReport{}, fmt.Errorf("usage of %s: %w", prefix, err)
	}
	rep := UsageReport{KeyPrefix: prefix, Endpoints: map[string]int64{}, Days: make([]DayUsage, days)}
	for i := range rep.Days {
		rep.Days[i] = DayUsage{Date: from.AddDate(0, 0, i).Format(time.DateOnly), ByStatus: map[string]int64{}, ByEndpoint: map[string]int64{}}
	}
	add := func(c usage.Count) {
		i := int(c.Start.UTC().Sub(from) / (24 * time.Hour))
		if c.Start.Before(from) || i >= days {
			return
		}
		d := &rep.Days[i]
		d.Requests += c.Count
		d.ByStatus[c.StatusClass] += c.Count
		d.ByEndpoint[c.Endpoint] += c.Count
		rep.Endpoints[c.Endpoint] += c.Count
		rep.Total += c.Count
	}
	for _, c := range rows {
		add(c)
	}
	for _, c := range extra {
		add(c)
	}
	rep.Today = rep.Days[days-1]
	return rep, nil
}

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
	Usage     UsageReport      `json:"usage"`
}

// UsageHandler answers GET /api/usage for the key of the request: its
// tier, limits, what is left of each window (this request counted) and its
// usage (?days=N, default 7, at most MaxReportDays), including this
// replica's counts not yet flushed. Mount it behind Wrap:
//
//	mux.Handle("GET /api/usage", g.Wrap("usage", g.UsageHandler()))
func (g *Guard) UsageHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := infoFrom(r.Context())
		if ri == nil {
			writeAuthProblem(w, r, problem.MissingAPIKey)
			return
		}
		days := 7
		if v := r.URL.Query().Get("days"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				p := problem.New(http.StatusBadRequest, problem.InvalidParameter, "Invalid parameter", "days must be a positive whole number.")
				p.Errors = []problem.FieldError{{Parameter: "days", Message: "must be a positive whole number"}}
				problem.Write(w, r, p)
				return
			}
			days = n
		}
		rep, err := BuildUsageReport(r.Context(), g.usage, ri.key.Prefix, g.now(), days, g.meter.pending(ri.key.Prefix))
		if err != nil {
			g.log.Error("access: usage report", "err", err, "key", ri.key.Prefix)
			writeAuthProblem(w, r, problem.Unavailable)
			return
		}
		writeJSON(w, r, g.usageAnswer(ri, rep))
	})
}

func (g *Guard) usageAnswer(ri *requestInfo, rep UsageReport) usageAnswer {
	var a usageAnswer
	a.Key.Prefix, a.Key.Name, a.Key.Tier, a.Key.State, a.Key.CreatedAt = ri.key.Prefix, ri.key.Name, ri.key.Tier, ri.key.State, ri.key.CreatedAt
	a.Limits = g.cfg.Tiers.For(ri.key)
	a.Remaining, a.Reset = map[string]int64{}, map[string]int64{}
	for _, w := range ri.decision.Windows() {
		a.Remaining[w.Policy] = w.Remaining
		a.Reset[w.Policy] = ceilSeconds(w.Reset)
	}
	a.Usage = rep
	return a
}

func writeJSON(w http.ResponseWriter, r *http.Request, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		problem.Write(w, r, problem.New(http.StatusInternalServerError, problem.Internal, "Internal server error", ""))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}
