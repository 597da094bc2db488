package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Change is one entry of the change feed: a perfume added or changed
// (Perfume, its full detail), or deleted (Deleted; ID is its slug).
type Change struct {
	ID      string
	Deleted bool
	Perfume *PerfumeDetail
}

// SyncPage is how many changes Sync asks for a page: the feed's most.
const SyncPage = 1000

// Sync walks the change feed from the cursor since ("": the whole
// catalogue, each perfume once) to its end, calling fn with each change,
// oldest first, and returns the cursor to pass next time: store it with
// what fn wrote. Each page is read as it arrives, one change at a time, so
// a walk of the whole catalogue holds one change, never a page. When fn or
// a page fails, the error is returned with the cursor after the last page
// fn saw whole: passing that cursor again repeats only the failed page's
// changes, and applying a change twice is harmless (the latest wins).
func (c *Client) Sync(ctx context.Context, since string, fn func(Change) error) (string, error) {
	for {
		next, more, err := c.syncPage(ctx, since, fn)
		if err != nil {
			return since, err
		}
		since = next
		if !more {
			return since, nil
		}
	}
}

// syncPage reads one page after since, calling fn with each change.
func (c *Client) syncPage(ctx context.Context, since string, fn func(Change) error) (string, bool, error) {
	limit := SyncPage
	p := &PerfumeChangesParams{Limit: &limit}
	if since != "" {
		p.Since = &since
	}
	res, err := c.api.ClientInterface.PerfumeChanges(ctx, p)
	if err != nil {
		return "", false, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return "", false, problemOf(res, body)
	}
	dec := json.NewDecoder(res.Body)
	var tail struct {
		NextCursor string `json:"nextCursor"`
		HasMore    bool   `json:"hasMore"`
	}
	if err := expect(dec, json.Delim('{'), "data", json.Delim('[')); err != nil {
		return "", false, err
	}
	for dec.More() {
		ch, err := decodeChange(dec)
		if err != nil {
			return "", false, fmt.Errorf("fragrance client: change feed: %w", err)
		}
		if err := fn(ch); err != nil {
			return "", false, err
		}
	}
	// The members after data: nextCursor and hasMore.
	if err := expect(dec, json.Delim(']')); err != nil {
		return "", false, err
	}
	for dec.More() {
		var name string
		if t, err := dec.Token(); err != nil {
			return "", false, fmt.Errorf("fragrance client: change feed: %w", err)
		} else {
			name, _ = t.(string)
		}
		var err error
		switch name {
		case "nextCursor":
			err = dec.Decode(&tail.NextCursor)
		case "hasMore":
			err = dec.Decode(&tail.HasMore)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return "", false, fmt.Errorf("fragrance client: change feed: %w", err)
		}
	}
	if tail.NextCursor == "" {
		return "", false, fmt.Errorf("fragrance client: change feed: a page without nextCursor")
	}
	return tail.NextCursor, tail.HasMore, nil
}

// decodeChange decodes the next change of a page: a tombstone
// {"id","deleted":true}, or a perfume's detail.
func decodeChange(dec *json.Decoder) (Change, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return Change{}, err
	}
	if len(raw) < 300 && bytes.Contains(raw, []byte(`"deleted":true`)) {
		var t Tombstone
		if err := json.Unmarshal(raw, &t); err != nil {
			return Change{}, err
		}
		return Change{ID: t.Id, Deleted: true}, nil
	}
	p := new(PerfumeDetail)
	if err := json.Unmarshal(raw, p); err != nil {
		return Change{}, err
	}
	return Change{ID: p.Id, Perfume: p}, nil
}

// expect reads the tokens want from dec: the delimiters and member names
// a change feed page opens and closes with.
func expect(dec *json.Decoder, want ...json.Token) error {
	for _, w := range want {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("fragrance client: change feed: %w", err)
		}
		if t != w {
			return fmt.Errorf("fragrance client: change feed: %v where %v was expected", t, w)
		}
	}
	return nil
}
