package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ catalog.Store = (*DB)(nil)

// Perfumes returns every stored perfume ordered by id.
func (d *DB) Perfumes(ctx context.Context) ([]catalog.Perfume, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM perfumes`).Scan(&n); err != nil {
		return nil, fmt.Errorf("count perfumes: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT slug, data FROM perfumes ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("load perfumes: %w", err)
	}
	defer rows.Close()
	out := make([]catalog.Perfume, 0, n)
	for rows.Next() {
		var slug string
		var data []byte
		if err := rows.Scan(&slug, &data); err != nil {
			return nil, fmt.Errorf("load perfumes: %w", err)
		}
		var p catalog.Perfume
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("decode perfume %q: %w", slug, err)
		}
		p.Slug = slug
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load perfumes: %w", err)
	}
	return out, nil
}

// CatalogueVersion returns the number of imports that changed the catalogue.
func (d *DB) CatalogueVersion(ctx context.Context) (int64, error) {
	var v int64
	err := d.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'catalogue_version'`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("catalogue version: %w", err)
	}
	return v, nil
}

// stored is what the database holds of one perfume before an import.
type stored struct {
	slug string
	data []byte
}

// ImportPerfumes upserts ps by id in one transaction (see catalog.Store).
func (d *DB) ImportPerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int)) (catalog.ImportResult, error) {
	var res catalog.ImportResult
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("import: begin: %w", err)
	}
	defer tx.Rollback()

	existing, taken, err := loadStored(ctx, tx)
	if err != nil {
		return res, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO perfumes (id, slug, data, updated_at) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer ins.Close()
	upd, err := tx.PrepareContext(ctx, `UPDATE perfumes SET data = ?, updated_at = ? WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer upd.Close()

	now := d.now().Unix()
	for i := range ps {
		p := ps[i]
		if old, ok := existing[p.ID]; ok {
			p.Slug = old.slug
			data, err := encode(p)
			if err != nil {
				return res, err
			}
			if bytes.Equal(data, old.data) {
				res.Unchanged++
			} else {
				if _, err := upd.ExecContext(ctx, data, now, p.ID); err != nil {
					return res, fmt.Errorf("import: update perfume %d: %w", p.ID, err)
				}
				res.Updated++
			}
		} else {
			p.Slug = pickSlug(p, taken)
			data, err := encode(p)
			if err != nil {
				return res, err
			}
			if _, err := ins.ExecContext(ctx, p.ID, p.Slug, data, now); err != nil {
				return res, fmt.Errorf("import: insert perfume %d: %w", p.ID, err)
			}
			existing[p.ID] = stored{slug: p.Slug, data: data}
			res.Added++
		}
		ps[i].Slug = p.Slug
		if progress != nil && (i%1000 == 999 || i == len(ps)-1) {
			progress(i + 1)
		}
	}
	if res.Added+res.Updated > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = value + 1 WHERE key = 'catalogue_version'`); err != nil {
			return res, fmt.Errorf("import: bump version: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("import: commit: %w", err)
	}
	return res, nil
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// loadStored reads every stored perfume's slug and record, and the set of
// slugs taken, so an import can tell new from changed from unchanged.
func loadStored(ctx context.Context, q querier) (map[int64]stored, map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, slug, data FROM perfumes`)
	if err != nil {
		return nil, nil, fmt.Errorf("import: load existing: %w", err)
	}
	defer rows.Close()
	existing := make(map[int64]stored)
	taken := make(map[string]bool)
	for rows.Next() {
		var id int64
		var s stored
		if err := rows.Scan(&id, &s.slug, &s.data); err != nil {
			return nil, nil, fmt.Errorf("import: load existing: %w", err)
		}
		existing[id] = s
		taken[s.slug] = true
	}
	return existing, taken, rows.Err()
}

// pickSlug returns the first free candidate slug for a new perfume and marks it taken.
func pickSlug(p catalog.Perfume, taken map[string]bool) string {
	cands := catalog.SlugCandidates(p.Slug, p.Year, p.ID)
	for _, c := range cands {
		if !taken[c] {
			taken[c] = true
			return c
		}
	}
	// base-<id> can only be taken by another perfume whose own name ends in
	// that number; count up until free.
	last := cands[len(cands)-1]
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s-%d", last, n); !taken[c] {
			taken[c] = true
			return c
		}
	}
}

// encode is the stored form of a perfume: its JSON without the slug, which
// lives in its own column.
func encode(p catalog.Perfume) ([]byte, error) {
	p.Slug = ""
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode perfume %d: %w", p.ID, err)
	}
	return data, nil
}
