package admin

import (
	"fmt"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Actors that are not an admin's email.
const (
	// ActorCLI is the command line (fragrance admin ...).
	ActorCLI = "cli"
	// ActorSystem is the service acting on its own (an automatic suspension).
	ActorSystem = "system"
)

// Check refuses an entry without actor or action, with an error wrapping
// catalog.ErrInvalid. Every Store's AppendAudit applies it.
func (e AuditEntry) Check() error {
	if strings.TrimSpace(e.Actor) == "" || strings.TrimSpace(e.Action) == "" {
		return fmt.Errorf("audit entry: actor and action are required: %w", catalog.ErrInvalid)
	}
	return nil
}
