package catalog

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// cursorPrefix marks the version of the change feed's cursor format.
const cursorPrefix = "v1:"

// ErrBadCursor is returned by ParseCursor for text that is not a cursor.
var ErrBadCursor = errors.New("not a change feed cursor; use the nextCursor of an earlier answer, or none to start from the beginning")

// FormatCursor is the opaque cursor of the change feed after sequence seq:
// base64url (unpadded) of a version prefix and the sequence. Sequences are
// the store's, so a cursor means the same on every replica and after a
// restart.
func FormatCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// ParseCursor returns the sequence of a cursor made by FormatCursor; the
// empty cursor is 0, the beginning of the feed.
func ParseCursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, ErrBadCursor
	}
	num, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return 0, ErrBadCursor
	}
	seq, err := strconv.ParseInt(num, 10, 64)
	if err != nil || seq < 0 || strconv.FormatInt(seq, 10) != num {
		return 0, ErrBadCursor
	}
	return seq, nil
}
