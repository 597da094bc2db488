package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// NeighbourChunks implements catalog.NeighbourStore.
func (d *DB) NeighbourChunks(ctx context.Context, key string) ([]int, error) {
	rows, err := d.pool.Query(ctx, `SELECT chunk FROM neighbour_chunks WHERE key = $1 ORDER BY chunk`, key)
	if err != nil {
		return nil, fail("neighbour chunks", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, fail("neighbour chunks", err)
	}
	return out, nil
}

// NeighbourChunk implements catalog.NeighbourStore.
func (d *DB) NeighbourChunk(ctx context.Context, key string, chunk int) ([]byte, error) {
	var b []byte
	err := d.pool.QueryRow(ctx, `SELECT data FROM neighbour_chunks WHERE key = $1 AND chunk = $2`, key, chunk).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("neighbour chunk %d: %w", chunk, catalog.ErrNotFound)
	}
	if err != nil {
		return nil, fail(fmt.Sprintf("neighbour chunk %d", chunk), err)
	}
	return b, nil
}

// PutNeighbourChunk implements catalog.NeighbourStore.
func (d *DB) PutNeighbourChunk(ctx context.Context, key string, chunk int, data []byte) error {
	_, err := d.pool.Exec(ctx, `INSERT INTO neighbour_chunks (key, chunk, data, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key, chunk) DO NOTHING`, key, chunk, data, d.now())
	if err != nil {
		return fail(fmt.Sprintf("store neighbour chunk %d", chunk), err)
	}
	return nil
}

// DropNeighbours implements catalog.NeighbourStore.
func (d *DB) DropNeighbours(ctx context.Context, keep string) error {
	if _, err := d.pool.Exec(ctx, `DELETE FROM neighbour_chunks WHERE key <> $1`, keep); err != nil {
		return fail("drop neighbour lists", err)
	}
	return nil
}
