package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// NeighbourChunks implements catalog.NeighbourStore.
func (d *DB) NeighbourChunks(ctx context.Context, key string) ([]int, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT chunk FROM neighbour_chunks WHERE key = ? ORDER BY chunk`, key)
	if err != nil {
		return nil, fmt.Errorf("sqlite: neighbour chunks: %w", err)
	}
	return collect(rows, "sqlite: neighbour chunks", func(r *sql.Rows) (int, error) {
		var c int
		return c, r.Scan(&c)
	})
}

// NeighbourChunk implements catalog.NeighbourStore.
func (d *DB) NeighbourChunk(ctx context.Context, key string, chunk int) ([]byte, error) {
	var b []byte
	err := d.db.QueryRowContext(ctx, `SELECT data FROM neighbour_chunks WHERE key = ? AND chunk = ?`, key, chunk).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("neighbour chunk %d: %w", chunk, catalog.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: neighbour chunk %d: %w", chunk, err)
	}
	return b, nil
}

// PutNeighbourChunk implements catalog.NeighbourStore.
func (d *DB) PutNeighbourChunk(ctx context.Context, key string, chunk int, data []byte) error {
	_, err := d.db.ExecContext(ctx, `INSERT INTO neighbour_chunks (key, chunk, data, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (key, chunk) DO NOTHING`, key, chunk, data, d.now().UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: store neighbour chunk %d: %w", chunk, err)
	}
	return nil
}

// DropNeighbours implements catalog.NeighbourStore.
func (d *DB) DropNeighbours(ctx context.Context, keep string) error {
	if _, err := d.db.ExecContext(ctx, `DELETE FROM neighbour_chunks WHERE key <> ?`, keep); err != nil {
		return fmt.Errorf("sqlite: drop neighbour lists: %w", err)
	}
	return nil
}
