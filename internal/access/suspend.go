package access

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fragrance-data/fragrance/internal/admin"
	"github.com/fragrance-data/fragrance/internal/apikey"
	"github.com/fragrance-data/fragrance/internal/usage"
)

// SuspendableSignals returns the signal kinds that name a key, and so may
// suspend it (AbuseConfig.AutoSuspend). failed_checks names a client IP
// only.
func SuspendableSignals() []string {
	return []string{usage.SignalLimitHits, usage.SignalManyIPs, SignalPageWalk, SignalSlugWalk, SignalFeedWalk}
}

// AuditActor is the Actor of the audit entries of automatic actions.
const AuditActor = "system"

// auditAction is the Action of a suspension, automatic or not.
const auditAction = "key.suspend"

// ParseSignalKinds reads a comma-separated list of signal kinds that may
// suspend their key (SuspendableSignals); empty gives none.
func ParseSignalKinds(s string) ([]string, error) {
	var kinds []string
	for _, k := range strings.Split(s, ",") {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" {
			continue
		}
		if err := checkSuspendable(k); err != nil {
			return nil, err
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

func checkSuspendable(kind string) error {
	switch {
	case slices.Contains(SuspendableSignals(), kind):
		return nil
	case kind == usage.SignalFailedChecks:
		return fmt.Errorf("signal %q names a client IP, not a key: it cannot suspend one (want some of %s)", kind, strings.Join(SuspendableSignals(), ", "))
	}
	return fmt.Errorf("unknown signal kind %q (want some of %s)", kind, strings.Join(SuspendableSignals(), ", "))
}

// validate checks the kinds of AutoSuspend, and that suspensions can be
// audited.
func (c *AbuseConfig) validate(audit func(context.Context, admin.AuditEntry) error) error {
	for _, k := range c.AutoSuspend {
		if err := checkSuspendable(k); err != nil {
			return fmt.Errorf("access: auto-suspend: %w", err)
		}
	}
	if len(c.AutoSuspend) > 0 && audit == nil {
		return fmt.Errorf("access: auto-suspend (%s) needs an audit log (Config.Audit)", strings.Join(c.AutoSuspend, ","))
	}
	return nil
}

// signal hands s, raised by a request of key from ip, to the meter and the
// metrics; first, when its kind is one of AbuseConfig.AutoSuspend, it
// suspends the key, which the signal's Detail then says. It is called at
// most once per key, kind and window, outside every lock of the Guard.
func (g *Guard) signal(ctx context.Context, key apikey.Key, ip string, s usage.Signal) {
	if slices.Contains(g.cfg.Abuse.AutoSuspend, s.Kind) && key.Prefix != "" {
		s.Detail += g.autoSuspend(ctx, key, ip, s)
	}
	g.metrics.signals.WithLabelValues(s.Kind).Inc()
	g.meter.Signal(s)
}

// autoSuspend suspends key for the signal s and audits it as done by the
// system; it returns what to add to the signal's Detail. The request that
// raised s has been admitted and is served; the key's next ones on this
// replica get 403 at once (its cache is updated), on other replicas within
// the key sync. A free key living at its limit is suspended, a paying one
// never is: refusals are its plan's to solve, not abuse.
func (g *Guard) autoSuspend(ctx context.Context, key apikey.Key, ip string, s usage.Signal) string {
	if s.Kind == usage.SignalLimitHits && key.Tier != apikey.Free {
		return fmt.Sprintf("; not suspended automatically: a %s key at its limit needs a larger plan", key.Tier)
	}
	// The store is asked even when the client has gone: the decision
	// stands whoever waits for it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.cfg.LookupTimeout)
	defer cancel()
	k, err := g.keys.SetKeyState(ctx, key.Prefix, apikey.Suspended)
	if err != nil {
		g.metrics.autoSuspensions.WithLabelValues(s.Kind, "failed").Inc()
		g.log.Error("access: automatic suspension failed", "key", key.Prefix, "signal", s.Kind, "err", err)
		return "; automatic suspension failed"
	}
	now := g.now()
	g.cache.update([]apikey.Key{k}, now)
	g.metrics.autoSuspensions.WithLabelValues(s.Kind, "suspended").Inc()
	e := admin.AuditEntry{At: now, Actor: AuditActor, IP: ip, Action: auditAction, Target: key.Prefix,
		Reason: "automatic, on signal " + s.Kind + ": " + s.Detail,
		Detail: fmt.Sprintf("%s → %s", key.State, apikey.Suspended)}
	if err := g.cfg.Audit(ctx, e); err != nil {
		// The suspension stands; the log keeps what the audit could not.
		g.log.Error("access: key suspended automatically, but the audit entry was not written", "key", key.Prefix,
			"signal", s.Kind, "reason", e.Reason, "at", e.At.Format(time.RFC3339), "err", err)
		return "; the key was suspended automatically (audit entry failed)"
	}
	g.log.Warn("access: key suspended automatically", "key", key.Prefix, "signal", s.Kind, "ip", ip)
	return "; the key was suspended automatically"
}
