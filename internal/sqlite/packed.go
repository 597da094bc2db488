package sqlite

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// The stored form of a perfume: not JSON, whose decoding with encoding/json
// would take most of a large catalogue's start-up and leave millions of
// small strings and slices behind. The packed form is a
// version byte and the fields in a fixed order: numbers as varints or
// 8-byte IEEE floats (exact), strings and lists length-prefixed. Rows
// written before it (JSON, starting with '{') are still read.

// packedV1 opens a packed record; JSON records open with '{'.
const packedV1 = 1

// errCorrupt reports a packed record that does not decode.
var errCorrupt = errors.New("corrupt packed perfume")

// pack returns the stored form of p (its slug included).
func pack(p *catalog.Perfume) []byte {
	b := make([]byte, 0, 512)
	b = append(b, packedV1)
	b = binary.AppendVarint(b, p.ID)
	for _, s := range []string{p.Slug, p.Name, p.Brand, p.BrandSlug} {
		b = appendStr(b, s)
	}
	b = binary.AppendVarint(b, int64(p.Year))
	b = appendStr(b, string(p.Gender))
	b = appendF64(b, p.Rating)
	b = binary.AppendVarint(b, int64(p.RatingCount))
	b = appendF64(b, p.Longevity)
	b = appendF64(b, p.Sillage)
	for _, s := range []string{p.Concentration, p.Description, p.Family} {
		b = appendStr(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(p.Accords)))
	for _, a := range p.Accords {
		b = appendStr(b, a.Name)
		b = appendF64(b, a.Strength)
	}
	for _, layer := range [][]string{p.Notes.Top, p.Notes.Middle, p.Notes.Base, p.Notes.Unplaced, p.Perfumers} {
		b = binary.AppendUvarint(b, uint64(len(layer)))
		for _, s := range layer {
			b = appendStr(b, s)
		}
	}
	for _, f := range []float64{p.Seasons.Winter, p.Seasons.Spring, p.Seasons.Summer, p.Seasons.Fall, p.DayNight.Day, p.DayNight.Night} {
		b = appendF64(b, f)
	}
	return appendStr(b, string(p.PriceTier))
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendF64(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// decoder decodes stored perfumes into memory laid out for a catalogue that
// lives as long as the process: the strings each perfume has alone (slug,
// name, description) are copied into large shared blocks, the repeated ones
// (brands, notes, accords, perfumers, …) are interned, and the accord and
// note lists are cut from shared slabs. A catalogue of 200,000 perfumes is
// then a few hundred allocations instead of millions.
//
// With reuse set, the decoder decodes every record into the same perfume
// instead: its lists are overwritten in place, for a caller that copies
// what it keeps (catalog.Store's EachPerfume).
type decoder struct {
	intern  map[string]string
	arena   []byte
	accords []catalog.AccordStrength
	strs    []string
	reuse   bool
}

const (
	arenaBlock = 256 << 10
	slabItems  = 4096
)

func newDecoder() *decoder { return &decoder{intern: make(map[string]string, 4096)} }

// decodeRow decodes a stored row (its slug column, record and change
// sequence) into p.
func (d *decoder) decodeRow(slug, data []byte, seq int64, p *catalog.Perfume) error {
	if err := d.decode(data, p); err != nil {
		return fmt.Errorf("decode perfume %q: %w", slug, err)
	}
	p.Seq = seq
	if p.Slug == "" { // a JSON record keeps its slug in the column only
		p.Slug = string(slug)
	}
	return nil
}

// decode decodes one stored record, packed or JSON, into p, setting every
// field. The record's bytes are not kept.
func (d *decoder) decode(data []byte, p *catalog.Perfume) error {
	if len(data) > 0 && data[0] == '{' {
		*p = catalog.Perfume{}
		return json.Unmarshal(data, p)
	}
	r := reader{b: data}
	if r.byte() != packedV1 {
		return fmt.Errorf("%w: unknown format", errCorrupt)
	}
	p.ID = r.varint()
	p.Slug, p.Name = d.str(r.bytes()), d.str(r.bytes())
	p.Brand, p.BrandSlug = d.interned(r.bytes()), d.interned(r.bytes())
	p.Year = int(r.varint())
	p.Gender = catalog.Gender(d.interned(r.bytes()))
	p.Rating = r.f64()
	p.RatingCount = int(r.varint())
	p.Longevity, p.Sillage = r.f64(), r.f64()
	p.Concentration, p.Description, p.Family = d.interned(r.bytes()), d.str(r.bytes()), d.interned(r.bytes())
	p.Accords = d.accordList(p.Accords, r.count())
	for i := range p.Accords {
		p.Accords[i] = catalog.AccordStrength{Name: d.interned(r.bytes()), Strength: r.f64()}
	}
	for _, layer := range []*[]string{&p.Notes.Top, &p.Notes.Middle, &p.Notes.Base, &p.Notes.Unplaced, &p.Perfumers} {
		*layer = d.strList(*layer, r.count())
		for i := range *layer {
			(*layer)[i] = d.interned(r.bytes())
		}
	}
	s := &p.Seasons
	s.Winter, s.Spring, s.Summer, s.Fall = r.f64(), r.f64(), r.f64(), r.f64()
	p.DayNight.Day, p.DayNight.Night = r.f64(), r.f64()
	p.PriceTier = catalog.PriceTier(d.interned(r.bytes()))
	if r.err != nil || len(r.b) != 0 {
		return fmt.Errorf("%w: %d bytes left over or missing", errCorrupt, len(r.b))
	}
	return nil
}

// str copies b into the current block and returns it as a string. Blocks
// are only appended to, within their capacity, so the bytes under a string
// never change.
func (d *decoder) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(d.arena)-len(d.arena) < len(b) {
		d.arena = make([]byte, 0, max(arenaBlock, len(b)))
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return unsafe.String(&d.arena[start], len(b))
}

// interned returns the one copy of a repeated string.
func (d *decoder) interned(b []byte) string {
	if s, ok := d.intern[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := d.str(b)
	d.intern[s] = s
	return s
}

// accordList returns a list of n accords: prev's memory when the decoder
// reuses it, else a cut of the current slab (nil for none).
func (d *decoder) accordList(prev []catalog.AccordStrength, n int) []catalog.AccordStrength {
	if d.reuse {
		return slices.Grow(prev[:0], n)[:n]
	}
	if n == 0 {
		return nil
	}
	if len(d.accords) < n {
		d.accords = make([]catalog.AccordStrength, max(slabItems, n))
	}
	out := d.accords[:n:n]
	d.accords = d.accords[n:]
	return out
}

// strList is accordList for string lists.
func (d *decoder) strList(prev []string, n int) []string {
	if d.reuse {
		return slices.Grow(prev[:0], n)[:n]
	}
	if n == 0 {
		return nil
	}
	if len(d.strs) < n {
		d.strs = make([]string, max(slabItems, n))
	}
	out := d.strs[:n:n]
	d.strs = d.strs[n:]
	return out
}

// reader reads a packed record; the first problem sticks in err and
// every later read returns zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() { r.err, r.b = errCorrupt, nil }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a list length, which can be no more than the bytes left.
func (r *reader) count() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) bytes() []byte {
	n := r.count()
	if n > len(r.b) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) f64() float64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}
