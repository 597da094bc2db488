package catalog

import (
	"errors"
	"fmt"
)

// Error kinds shared by every layer. Backends and the index wrap them with
// context; the HTTP adapter maps them to status codes with errors.Is.
var (
	// ErrNotFound: the perfume, perfumer or other thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the caller's input is malformed or out of range.
	ErrInvalid = errors.New("invalid input")
	// ErrUnavailable: a backing service (database, cache) cannot be reached.
	ErrUnavailable = errors.New("unavailable")
)

// ParamError is an invalid query parameter, with a message meant for the
// client. It matches ErrInvalid under errors.Is.
type ParamError struct {
	Parameter string
	Message   string
}

// Error implements error.
func (e *ParamError) Error() string {
	return fmt.Sprintf("invalid parameter %q: %s", e.Parameter, e.Message)
}

// Is makes a ParamError match ErrInvalid.
func (e *ParamError) Is(target error) bool { return target == ErrInvalid }

// ParamErrors is a list of invalid parameters reported together.
type ParamErrors []*ParamError

// Error implements error.
func (es ParamErrors) Error() string {
	if len(es) == 1 {
		return es[0].Error()
	}
	return fmt.Sprintf("%d invalid parameters; first: %v", len(es), es[0])
}

// Is makes ParamErrors match ErrInvalid.
func (es ParamErrors) Is(target error) bool { return target == ErrInvalid }

// Err returns es as an error, or nil when it is empty.
func (es ParamErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}
