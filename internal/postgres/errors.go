package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// fail wraps err with what was being done. When the cause is the database
// not answering (down, unreachable, restarting, out of connections, the
// pool closed) the error also wraps catalog.ErrUnavailable, so the API
// answers 503 and authentication fails closed.
func fail(what string, err error) error {
	if unavailable(err) {
		return fmt.Errorf("postgres: %s: %w: %w", what, err, catalog.ErrUnavailable)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// unavailable reports whether err means the database could not be used,
// as opposed to a query it refused or a caller that gave up.
func unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return unavailableState(pgErr.Code)
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) ||
		errors.As(err, &netErr) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, puddle.ErrClosedPool) ||
		errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.Timeout(err) || pgconn.SafeToRetry(err)
}

// unavailableState reports SQLSTATEs that say the server, not the query,
// is the problem: connection exceptions (class 08), the server shutting
// down or starting (57P01–57P03) and too many connections (53300).
func unavailableState(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}

// isUniqueViolation reports a unique-constraint failure (SQLSTATE 23505).
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
