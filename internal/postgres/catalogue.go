package postgres

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

var _ catalog.Store = (*DB)(nil)

// CatalogueChannel is the NOTIFY channel on which a committed import that
// changed the catalogue announces the new catalogue version.
const CatalogueChannel = "fragrance_catalogue"

// Perfumes returns every stored perfume ordered by id.
func (d *DB) Perfumes(ctx context.Context) ([]catalog.Perfume, error) {
	var out []catalog.Perfume
	err := d.eachRecord(ctx, func(slug string, data []byte, seq int64) error {
		var p catalog.Perfume
		if err := decodeRow(slug, data, seq, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
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
	return d.eachRecord(ctx, func(slug string, data []byte, seq int64) error {
		// encoding/json fills the lists' memory again; the other fields
		// start from zero, as a record may leave some out.
		p = catalog.Perfume{
			Accords: p.Accords[:0], Perfumers: p.Perfumers[:0],
			Notes: catalog.NotePyramid{Top: p.Notes.Top[:0], Middle: p.Notes.Middle[:0], Base: p.Notes.Base[:0], Unplaced: p.Notes.Unplaced[:0]},
		}
		if err := decodeRow(slug, data, seq, &p); err != nil {
			return err
		}
		return fn(&p)
	})
}

// eachRecord calls fn with every stored row in id order: its slug, its
// record, which is valid during the call, and its change sequence. The first error fn returns stops
// the query and is returned.
func (d *DB) eachRecord(ctx context.Context, fn func(slug string, data []byte, seq int64) error) error {
	rows, err := d.pool.Query(ctx, `SELECT slug, data, seq FROM perfumes ORDER BY id`)
	if err != nil {
		return fail("load perfumes", err)
	}
	defer rows.Close()
	for rows.Next() {
		var slug string
		var seq int64
		// The stored form is JSON; decoding straight from the wire buffer
		// saves a copy per row.
		if err := rows.Scan(&slug, nil, &seq); err != nil {
			return fail("load perfumes", err)
		}
		if err := fn(slug, rows.RawValues()[1], seq); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fail("load perfumes", err)
	}
	return nil
}

// decodeRow decodes a stored record into p; the slug column wins, and
// the sequence column is the record's change sequence.
func decodeRow(slug string, data []byte, seq int64, p *catalog.Perfume) error {
	if err := json.Unmarshal(data, p); err != nil {
		return fmt.Errorf("postgres: decode perfume %q: %w", slug, err)
	}
	p.Slug, p.Seq = slug, seq
	return nil
}

// CatalogueVersion returns the number of imports that changed the catalogue.
func (d *DB) CatalogueVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := d.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'catalogue_version'`).Scan(&v); err != nil {
		return 0, fail("catalogue version", err)
	}
	return v, nil
}

// stored is what the database holds of one perfume before an import: its
// slug and a digest of its stored record, enough to tell whether an
// incoming record changes it without reading every record back.
type stored struct {
	slug   string
	digest [md5.Size]byte
}

// ImportPerfumes upserts ps by id in one transaction (see catalog.Store).
// The changed and new rows are streamed with COPY into a temporary table and
// merged with one INSERT ... ON CONFLICT; imports from several replicas
// queue on a table lock while readers keep reading the previous rows. When
// the import changed something, its commit notifies CatalogueChannel.
// progress is called one call at a time, partly from the driver's COPY
// goroutine, and never after ImportPerfumes returns.
func (d *DB) ImportPerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int)) (catalog.ImportResult, error) {
	return d.importOrReplace(ctx, ps, progress, false)
}

// ReplacePerfumes upserts ps and deletes the perfumes absent from it, in
// one transaction (see catalog.Store).
func (d *DB) ReplacePerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int)) (catalog.ImportResult, error) {
	return d.importOrReplace(ctx, ps, progress, true)
}

func (d *DB) importOrReplace(ctx context.Context, ps []catalog.Perfume, progress func(int), prune bool) (catalog.ImportResult, error) {
	res, err := d.importPerfumes(ctx, ps, progress, prune)
	if err != nil && ctx.Err() != nil {
		// Whatever the driver made of the cancellation, say what it was.
		return catalog.ImportResult{}, fmt.Errorf("postgres: import: %w (%v)", ctx.Err(), err)
	}
	return res, err
}

func (d *DB) importPerfumes(ctx context.Context, ps []catalog.Perfume, progress func(int), prune bool) (catalog.ImportResult, error) {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return catalog.ImportResult{}, fail("import: begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// EXCLUSIVE blocks other writers (and other imports) but not plain reads.
	if _, err := tx.Exec(ctx, `LOCK TABLE perfumes IN EXCLUSIVE MODE`); err != nil {
		return catalog.ImportResult{}, fail("import: lock", err)
	}
	existing, taken, err := loadStored(ctx, tx)
	if err != nil {
		return catalog.ImportResult{}, err
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE perfume_import (seq INTEGER, id BIGINT, slug TEXT, data JSON) ON COMMIT DROP`); err != nil {
		return catalog.ImportResult{}, fail("import: temp table", err)
	}
	src := &importSource{ctx: ctx, ps: ps, existing: existing, taken: taken, progress: progress, i: -1}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"perfume_import"}, []string{"seq", "id", "slug", "data"}, src); err != nil {
		return catalog.ImportResult{}, fail("import: copy", err)
	}
	res := src.res
	if prune {
		ids := make([]int64, len(ps))
		for i := range ps {
			ids[i] = ps[i].ID
		}
		// Tombstones take sequences after every row of the file's.
		tag, err := tx.Exec(ctx, `WITH gone AS (DELETE FROM perfumes WHERE id <> ALL($1) RETURNING id, slug),
			base AS (SELECT value FROM meta WHERE key = 'change_seq')
			INSERT INTO perfume_tombstones (id, slug, seq)
			SELECT id, slug, (SELECT value FROM base) + $2 + row_number() OVER (ORDER BY id) FROM gone
			ON CONFLICT (id) DO UPDATE SET slug = EXCLUDED.slug, seq = EXCLUDED.seq`, ids, int64(len(ps)))
		if err != nil {
			return catalog.ImportResult{}, fail("import: delete absent", err)
		}
		res.Deleted = int(tag.RowsAffected())
	}
	if res.Added+res.Updated+res.Deleted > 0 {
		if err := mergeImport(ctx, tx, d.now(), int64(len(ps)+res.Deleted)); err != nil {
			return catalog.ImportResult{}, err
		}
	}
	if progress != nil && len(ps) > 0 {
		progress(len(ps))
	}
	if err := tx.Commit(ctx); err != nil {
		return catalog.ImportResult{}, fail("import: commit", err)
	}
	return res, nil
}

// mergeImport writes the copied rows into perfumes (a stored slug is never
// overwritten; of an id given twice the last record wins), bumps the catalogue version and queues the notification,
// which the server delivers only if and when the transaction commits.
//
// Each written row's change sequence is the last one given out plus one
// plus its place in the file, so the rows of one import keep file order;
// used is how many sequences the import takes (the file's rows and its
// deletions), and the sequences of unchanged rows are simply not used.
func mergeImport(ctx context.Context, tx pgx.Tx, now any, used int64) error {
	if _, err := tx.Exec(ctx, `INSERT INTO perfumes (id, slug, data, updated_at, seq)
		SELECT DISTINCT ON (id) id, slug, data, $1,
			(SELECT value FROM meta WHERE key = 'change_seq') + seq + 1
		FROM perfume_import ORDER BY id, seq DESC
		ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at, seq = EXCLUDED.seq`, now); err != nil {
		return fail("import: merge", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM perfume_tombstones WHERE id IN (SELECT id FROM perfume_import)`); err != nil {
		return fail("import: merge", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE meta SET value = value + $1 WHERE key = 'change_seq'`, used); err != nil {
		return fail("import: change sequence", err)
	}
	var v int64
	if err := tx.QueryRow(ctx, `UPDATE meta SET value = value + 1 WHERE key = 'catalogue_version' RETURNING value`).Scan(&v); err != nil {
		return fail("import: bump version", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, CatalogueChannel, strconv.FormatInt(v, 10)); err != nil {
		return fail("import: notify", err)
	}
	return nil
}

// Changes returns the changes after sequence since, oldest first (see
// catalog.Store).
func (d *DB) Changes(ctx context.Context, since int64, limit int) ([]catalog.Change, error) {
	rows, err := d.pool.Query(ctx, `SELECT seq, id, slug, data::text FROM perfumes WHERE seq > $1
		UNION ALL SELECT seq, id, slug, NULL FROM perfume_tombstones WHERE seq > $1
		ORDER BY seq LIMIT $2`, since, limit)
	if err != nil {
		return nil, fail("changes", err)
	}
	defer rows.Close()
	var out []catalog.Change
	for rows.Next() {
		var c catalog.Change
		var data *string
		if err := rows.Scan(&c.Seq, &c.ID, &c.Slug, &data); err != nil {
			return nil, fail("changes", err)
		}
		if data != nil {
			c.Perfume = new(catalog.Perfume)
			if err := decodeRow(c.Slug, []byte(*data), c.Seq, c.Perfume); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fail("changes", err)
	}
	return out, nil
}

// loadStored reads every stored perfume's slug and record digest, and the
// set of slugs taken, so an import can tell new from changed from unchanged.
func loadStored(ctx context.Context, tx pgx.Tx) (map[int64]stored, map[string]bool, error) {
	rows, err := tx.Query(ctx, `SELECT id, slug, decode(md5(data::text), 'hex') FROM perfumes`)
	if err != nil {
		return nil, nil, fail("import: load existing", err)
	}
	defer rows.Close()
	existing := make(map[int64]stored)
	taken := make(map[string]bool)
	for rows.Next() {
		var id int64
		var s stored
		var digest []byte
		if err := rows.Scan(&id, &s.slug, &digest); err != nil {
			return nil, nil, fail("import: load existing", err)
		}
		copy(s.digest[:], digest)
		existing[id] = s
		taken[s.slug] = true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fail("import: load existing", err)
	}
	return existing, taken, nil
}

// importSource feeds COPY the perfumes an import adds or changes, deciding
// row by row as the driver asks, so encoding overlaps with sending. It
// counts the outcome, writes chosen slugs back into ps (as the SQLite
// backend does) and reports progress every thousand rows. The driver reads
// it on a goroutine of its own but returns only after that is done.
type importSource struct {
	ctx      context.Context
	ps       []catalog.Perfume
	existing map[int64]stored
	taken    map[string]bool
	progress func(int)

	i   int
	row []any
	res catalog.ImportResult
	err error
}

// Next advances to the next perfume to write, skipping unchanged ones.
func (s *importSource) Next() bool {
	for s.err == nil {
		s.i++
		if s.i > 0 && s.i%1000 == 0 && s.progress != nil && s.i < len(s.ps) {
			s.progress(s.i)
		}
		if s.err = s.ctx.Err(); s.err != nil || s.i >= len(s.ps) {
			return false
		}
		if s.prepare(&s.ps[s.i]) {
			return true
		}
	}
	return false
}

// prepare classifies one perfume and, when it must be written, sets row.
func (s *importSource) prepare(in *catalog.Perfume) bool {
	p := *in
	old, ok := s.existing[p.ID]
	if ok {
		p.Slug = old.slug
	} else {
		p.Slug = catalog.PickSlug(p, s.taken)
	}
	in.Slug = p.Slug
	data, err := encode(p)
	if err != nil {
		s.err = err
		return false
	}
	switch {
	case ok && md5.Sum(data) == old.digest:
		s.res.Unchanged++
		return false
	case ok:
		s.res.Updated++
	default:
		// Mark it stored so a duplicate id later in ps counts as an update.
		s.existing[p.ID] = stored{slug: p.Slug, digest: md5.Sum(data)}
		s.res.Added++
	}
	s.row = []any{int32(s.i), p.ID, p.Slug, data}
	return true
}

// Values returns the current row.
func (s *importSource) Values() ([]any, error) { return s.row, s.err }

// Err returns what stopped the stream early, if anything.
func (s *importSource) Err() error { return s.err }

// encode is the stored form of a perfume: its JSON without the slug, which
// lives in its own column.
func encode(p catalog.Perfume) ([]byte, error) {
	p.Slug = ""
	data, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("postgres: encode perfume %d: %w", p.ID, err)
	}
	return data, nil
}
