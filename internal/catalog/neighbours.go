package catalog

import "context"

// NeighbourStore keeps the in-memory index's precomputed neighbour lists
// (the most similar perfumes and the best dupes of each perfume; see
// index.ComputeNeighbours) as opaque chunks under a key that names the
// catalogue and the rankings they were made for, so that another replica,
// or the next start on the same catalogue, loads them instead of ranking
// every perfume again. The SQLite and PostgreSQL backends meet it. What it
// holds can always be computed again: losing it costs CPU, never answers.
type NeighbourStore interface {
	// NeighbourChunks lists, ascending, the chunk numbers stored under key.
	NeighbourChunks(ctx context.Context, key string) ([]int, error)
	// NeighbourChunk returns the chunk stored under key and number chunk;
	// the error wraps ErrNotFound when there is none.
	NeighbourChunk(ctx context.Context, key string, chunk int) ([]byte, error)
	// PutNeighbourChunk stores a chunk. One already stored under the same
	// key and number is kept: whoever computes it computes the same bytes.
	PutNeighbourChunk(ctx context.Context, key string, chunk int, data []byte) error
	// DropNeighbours deletes every chunk stored under another key than
	// keep (the lists of catalogues no longer served).
	DropNeighbours(ctx context.Context, keep string) error
}
