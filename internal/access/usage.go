package access

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/fragrance-data/fragrance/internal/apikey"
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

// UsageHandler answers GET /api/usage for the key of the request: its
// tier, limits, what is left of each window (this request counted) and its
// usage (?days=N, default 7, at most usage.MaxReportDays), including this
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
		rep, err := g.meter.Report(r.Context(), ri.key.Prefix, days)
		if err != nil {
			g.log.Error("access: usage report", "err", err, "key", ri.key.Prefix)
			writeAuthProblem(w, r, problem.Unavailable)
			return
		}
		writeJSON(w, r, g.usageAnswer(ri, rep))
	})
}

func (g *Guard) usageAnswer(ri *requestInfo, rep usage.Report) usageAnswer {
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
