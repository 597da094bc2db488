package catalog

import (
	"errors"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, seq := range []int64{0, 1, 99, 1 << 40} {
		got, err := ParseCursor(FormatCursor(seq))
		if err != nil || got != seq {
			t.Errorf("ParseCursor(FormatCursor(%d)) = %d, %v", seq, got, err)
		}
	}
	if seq, err := ParseCursor(""); seq != 0 || err != nil {
		t.Errorf("ParseCursor(\"\") = %d, %v; want 0, nil", seq, err)
	}
	for _, bad := range []string{"12", "!!", FormatCursor(5) + "=", "djI6NQ", "djE6LTE", "djE6MDU", "djE6"} {
		if _, err := ParseCursor(bad); !errors.Is(err, ErrBadCursor) {
			t.Errorf("ParseCursor(%q) = %v; want ErrBadCursor", bad, err)
		}
	}
}
