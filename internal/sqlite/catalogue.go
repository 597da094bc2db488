package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ catalog.Store = (*DB)(nil)

// Perfumes returns every stored perfume ordered by id, laid out in memory
// for a catalogue that is kept (see decoder): each list has its own
// elements, and capacity equal to its length, so writes and appends touch
// no other perfume.
func (d *DB) Perfumes(ctx context.Context) ([]catalog.Perfume, error) {
	var n int // a capacity hint: an import may commit between the two queries
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM perfumes`).Scan(&n); err != nil {
		return nil, fmt.Errorf("count perfumes: %w", err)
	}
	out := make([]catalog.Perfume, 0, n)
	err := d.eachRecord(ctx, newDecoder(), func(dec *decoder, slug, data []byte, seq int64) error {
		out = append(out, catalog.Perfume{})
		return dec.decodeRow(slug, data, seq, &out[len(out)-1])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachPerfume calls fn with every stored perfume, ordered by id, decoded
// into the same memory each time (see catalog.Store).
func (d *DB) EachPerfume(ctx context.Context, fn func(p *catalog.Perfume) error) error {
	var p catalog.Perfume
	dec := newDecoder()
	dec.reuse = true
	return d.eachRecord(ctx, dec, func(dec *decoder, slug, data []byte, seq int64) error {
		if err := dec.decodeRow(slug, data, seq, &p); err != nil {
			return err
		}
		return fn(&p)
	})
}

// eachRecord calls fn with every stored record in id order, with its
// change sequence; the bytes are valid during the call. Reading the rows and fn run side by side, a batch
// of rows apart. The first error fn returns stops the reading and is
// returned.
func (d *DB) eachRecord(ctx context.Context, dec *decoder, fn func(dec *decoder, slug, data []byte, seq int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *rowBatch, 4)
	errc := make(chan error, 1)
	go func() { errc <- d.readRows(ctx, batches) }()
	var fnErr error
	for b := range batches {
		for i := 0; i+1 < len(b.off) && fnErr == nil; i++ {
			slug, data := b.record(i)
			if fnErr = fn(dec, slug, data, b.seq[i]); fnErr != nil {
				cancel() // stop the reader; drain what it sent
			}
		}
	}
	if err := <-errc; fnErr == nil && err != nil {
		return err
	}
	return fnErr
}

// rowBatch is a run of stored rows, copied out of the driver's buffers:
// each row's slug, then its record, and its change sequence.
type rowBatch struct {
	data []byte
	off  []int // row i is data[off[i]:off[i+1]], its slug ending at slug[i]
	slug []int
	seq  []int64
}

func (b *rowBatch) add(slug, data []byte, seq int64) {
	b.seq = append(b.seq, seq)
	b.data = append(b.data, slug...)
	b.slug = append(b.slug, len(b.data))
	b.data = append(b.data, data...)
	b.off = append(b.off, len(b.data))
}

// record returns row i's slug and record.
func (b *rowBatch) record(i int) (slug, data []byte) {
	return b.data[b.off[i]:b.slug[i]], b.data[b.slug[i]:b.off[i+1]]
}

// rowBatchBytes is about how much row data a batch carries.
const rowBatchBytes = 256 << 10

// readRows sends every stored record, in id order, in batches, and closes
// batches when done.
func (d *DB) readRows(ctx context.Context, batches chan<- *rowBatch) error {
	defer close(batches)
	rows, err := d.db.QueryContext(ctx, `SELECT slug, data, seq FROM perfumes ORDER BY id`)
	if err != nil {
		return fmt.Errorf("load perfumes: %w", err)
	}
	defer rows.Close()
	newBatch := func() *rowBatch { return &rowBatch{data: make([]byte, 0, rowBatchBytes+4096), off: []int{0}} }
	b := newBatch()
	send := func() bool {
		select {
		case batches <- b:
			b = newBatch()
			return true
		case <-ctx.Done():
			return false
		}
	}
	for rows.Next() {
		var slug, data sql.RawBytes // valid until Next: copied into the batch
		var seq int64
		if err := rows.Scan(&slug, &data, &seq); err != nil {
			return fmt.Errorf("load perfumes: %w", err)
		}
		b.add(slug, data, seq)
		if len(b.data) >= rowBatchBytes && !send() {
			return ctx.Err()
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load perfumes: %w", err)
	}
	if len(b.off) > 1 && !send() {
		return ctx.Err()
	}
	return nil
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
	return d.importPerfumes(ctx, ps, progress, false)
}

// ReplacePerfumes upserts ps and deletes the perfumes absent from it, in
// one transaction (see catalog.Store).
func (d *DB) ReplacePerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int)) (catalog.ImportResult, error) {
	return d.importPerfumes(ctx, ps, progress, true)
}

func (d *DB) importPerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int), prune bool) (res catalog.ImportResult, err error) {
	defer func() {
		// A cancelled import fails in whichever statement notices first,
		// sometimes as "statement is closed"; report the cause.
		if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("import: begin: %w", err)
	}
	defer tx.Rollback()

	existing, taken, err := loadStored(ctx, tx)
	if err != nil {
		return res, err
	}
	var seq int64 // the last change sequence given out
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'change_seq'`).Scan(&seq); err != nil {
		return res, fmt.Errorf("import: change sequence: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO perfumes (id, slug, data, updated_at, seq) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer ins.Close()
	upd, err := tx.PrepareContext(ctx, `UPDATE perfumes SET data = ?, updated_at = ?, seq = ? WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer upd.Close()
	rewrite, err := tx.PrepareContext(ctx, `UPDATE perfumes SET data = ?, updated_at = ? WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer rewrite.Close()
	untomb, err := tx.PrepareContext(ctx, `DELETE FROM perfume_tombstones WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("import: %w", err)
	}
	defer untomb.Close()
	seen := make(map[int64]bool, len(ps))

	now := d.now().Unix()
	for i := range ps {
		p := ps[i]
		if old, ok := existing[p.ID]; ok {
			p.Slug = old.slug
			data := pack(&p)
			if same, err := samePerfume(data, old); err != nil {
				return res, err
			} else if same {
				res.Unchanged++
				if !bytes.Equal(data, old.data) { // an older format: rewrite it, same perfume
					if _, err := rewrite.ExecContext(ctx, data, now, p.ID); err != nil {
						return res, fmt.Errorf("import: rewrite perfume %d: %w", p.ID, err)
					}
				}
			} else {
				seq++
				if _, err := upd.ExecContext(ctx, data, now, seq, p.ID); err != nil {
					return res, fmt.Errorf("import: update perfume %d: %w", p.ID, err)
				}
				existing[p.ID] = stored{slug: p.Slug, data: data}
				res.Updated++
			}
		} else {
			p.Slug = catalog.PickSlug(p, taken)
			data := pack(&p)
			seq++
			if _, err := ins.ExecContext(ctx, p.ID, p.Slug, data, now, seq); err != nil {
				return res, fmt.Errorf("import: insert perfume %d: %w", p.ID, err)
			}
			if _, err := untomb.ExecContext(ctx, p.ID); err != nil {
				return res, fmt.Errorf("import: insert perfume %d: %w", p.ID, err)
			}
			existing[p.ID] = stored{slug: p.Slug, data: data}
			res.Added++
		}
		ps[i].Slug = p.Slug
		seen[p.ID] = true
		if progress != nil && (i%1000 == 999 || i == len(ps)-1) {
			progress(i + 1)
		}
	}
	if prune {
		if seq, err = deleteAbsent(ctx, tx, existing, seen, seq, &res); err != nil {
			return res, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'change_seq'`, seq); err != nil {
		return res, fmt.Errorf("import: change sequence: %w", err)
	}
	if res.Added+res.Updated+res.Deleted > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = value + 1 WHERE key = 'catalogue_version'`); err != nil {
			return res, fmt.Errorf("import: bump version: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("import: commit: %w", err)
	}
	return res, nil
}

// deleteAbsent deletes the stored perfumes not in seen, in id order, each
// leaving a tombstone with the next sequence after seq; it returns the last
// sequence given out.
func deleteAbsent(ctx context.Context, tx *sql.Tx, existing map[int64]stored, seen map[int64]bool, seq int64, res *catalog.ImportResult) (int64, error) {
	var gone []int64
	for id := range existing {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		seq++
		if _, err := tx.ExecContext(ctx, `DELETE FROM perfumes WHERE id = ?`, id); err != nil {
			return seq, fmt.Errorf("import: delete perfume %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO perfume_tombstones (id, slug, seq) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, seq = excluded.seq`, id, existing[id].slug, seq); err != nil {
			return seq, fmt.Errorf("import: tombstone perfume %d: %w", id, err)
		}
		res.Deleted++
	}
	return seq, nil
}

// Changes returns the changes after sequence since, oldest first (see
// catalog.Store).
func (d *DB) Changes(ctx context.Context, since int64, limit int) ([]catalog.Change, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT seq, id, slug, data FROM perfumes WHERE seq > ?1
		UNION ALL SELECT seq, id, slug, NULL FROM perfume_tombstones WHERE seq > ?1
		ORDER BY seq LIMIT ?2`, since, limit)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	defer rows.Close()
	dec := newDecoder()
	var out []catalog.Change
	for rows.Next() {
		var c catalog.Change
		var slug, data []byte
		if err := rows.Scan(&c.Seq, &c.ID, &slug, &data); err != nil {
			return nil, fmt.Errorf("changes: %w", err)
		}
		c.Slug = string(slug)
		if data != nil {
			c.Perfume = new(catalog.Perfume)
			if err := dec.decodeRow(slug, data, c.Seq, c.Perfume); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	return out, nil
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

// samePerfume reports whether the packed record data holds the same
// perfume as the stored one, which may be in the older JSON form.
func samePerfume(data []byte, old stored) (bool, error) {
	if len(old.data) == 0 || old.data[0] != '{' {
		return bytes.Equal(data, old.data), nil
	}
	var p catalog.Perfume
	if err := json.Unmarshal(old.data, &p); err != nil {
		return false, fmt.Errorf("import: decode stored perfume %q: %w", old.slug, err)
	}
	p.Slug = old.slug
	return bytes.Equal(data, pack(&p)), nil
}
