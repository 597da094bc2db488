package importer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// maxLineBytes bounds one JSON Lines row, so a file without newlines cannot
// exhaust memory. Real rows are under 2 KB.
const maxLineBytes = 8 << 20

// jsonRow is one line of the JSON Lines format (see the bundled README).
// null and absent fields decode as zero, which the normaliser reads as
// unknown; unknown fields such as lowVotes are ignored.
type jsonRow struct {
	ID            int64    `json:"fragranticaId"`
	Name          string   `json:"name"`
	Brand         string   `json:"brand"`
	Gender        string   `json:"gender"`
	Year          int      `json:"year"`
	Rating        float64  `json:"rating"`
	RatingCount   int      `json:"ratingCount"`
	Longevity     float64  `json:"longevity"`
	Sillage       float64  `json:"sillage"`
	Seasons       seasons  `json:"seasons"`
	DayNight      dayNight `json:"dayNight"`
	Accords       []accord `json:"accords"`
	Notes         notes    `json:"notes"`
	Perfumers     []string `json:"perfumers"`
	Description   string   `json:"description"`
	Family        string   `json:"family"`
	Concentration string   `json:"concentration"`
}

type seasons struct {
	Winter float64 `json:"winter"`
	Spring float64 `json:"spring"`
	Summer float64 `json:"summer"`
	Fall   float64 `json:"fall"`
}

type dayNight struct {
	Day   float64 `json:"day"`
	Night float64 `json:"night"`
}

type accord struct {
	Name     string  `json:"name"`
	Strength float64 `json:"strength"`
}

type notes struct {
	Top      []string `json:"top"`
	Middle   []string `json:"middle"`
	Base     []string `json:"base"`
	Unplaced []string `json:"unplaced,omitempty"`
}

// ReadJSONL reads the JSON Lines format, gzipped or not (told by the gzip
// magic bytes), naming the input name in row errors. Each line is one
// perfume; blank lines are skipped. A row is rejected when it is not a
// JSON object, lacks fragranticaId, name, brand or a known gender, carries
// a value out of range, or repeats an id seen earlier in the file (the
// first row with an id wins). Lines are parsed by a few goroutines; the
// result keeps file order. The error is for the input itself: unreadable
// or a broken gzip stream.
func (im *Importer) ReadJSONL(r io.Reader, name string) (*Result, error) {
	br, err := maybeGunzip(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	res := &Result{}
	firstLine := make(map[int64]int)
	readErr := im.parseBatches(br, func(b *batch) {
		for _, lr := range b.results {
			if first, dup := firstLine[lr.p.ID]; lr.reason == "" && dup {
				lr.reason = fmt.Sprintf("duplicate id %d (first on line %d)", lr.p.ID, first)
			}
			if lr.reason != "" {
				res.reject(name, lr.line, lr.reason)
				continue
			}
			firstLine[lr.p.ID] = lr.line
			res.Perfumes = append(res.Perfumes, lr.p)
		}
	})
	if readErr != nil {
		return nil, fmt.Errorf("read %s: %w", name, readErr)
	}
	return res, nil
}

func (res *Result) reject(file string, line int, reason string) {
	res.Rejected = append(res.Rejected, RowError{File: file, Line: line, Reason: reason})
}

// parseJSONLine decodes and normalises one row, or says why it cannot.
func (im *Importer) parseJSONLine(text []byte) (catalog.Perfume, string) {
	var row jsonRow
	if err := json.Unmarshal(text, &row); err != nil {
		return catalog.Perfume{}, jsonReason(err)
	}
	p := row.perfume()
	if reason := im.normalize(&p); reason != "" {
		return catalog.Perfume{}, reason
	}
	return p, ""
}

func (row *jsonRow) perfume() catalog.Perfume {
	p := catalog.Perfume{
		ID: row.ID, Name: row.Name, Brand: row.Brand, Gender: parseGender(row.Gender),
		Year: row.Year, Rating: row.Rating, RatingCount: row.RatingCount,
		Longevity: row.Longevity, Sillage: row.Sillage,
		Concentration: row.Concentration, Description: row.Description, Family: row.Family,
		Notes:     catalog.NotePyramid(row.Notes),
		Perfumers: row.Perfumers,
		Seasons:   catalog.Seasons(row.Seasons),
		DayNight:  catalog.DayNight(row.DayNight),
		Accords:   make([]catalog.AccordStrength, len(row.Accords)),
	}
	for i, a := range row.Accords {
		p.Accords[i] = catalog.AccordStrength(a)
	}
	return p
}

// parseGender accepts the three catalogue genders and the source spellings
// the catalogue was built from; anything else stays as given, so the
// normaliser reports it.
func parseGender(s string) catalog.Gender {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "masculine", "male", "men", "man":
		return catalog.Masculine
	case "feminine", "female", "women", "woman":
		return catalog.Feminine
	case "unisex":
		return catalog.Unisex
	}
	return catalog.Gender(s)
}

// jsonReason turns a decoding error into a short reason for a row error.
func jsonReason(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return fmt.Sprintf("not a JSON object (got %s)", typeErr.Value)
		}
		return fmt.Sprintf("field %q: want %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

// maybeGunzip wraps r in a gzip reader when it starts with the gzip magic
// bytes, and in a buffered reader either way.
func maybeGunzip(r io.Reader) (*bufio.Reader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil // short or empty input is read as (empty) text
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return bufio.NewReaderSize(zr, 64<<10), nil
}

// readLine appends the next line (without its newline) to buf. A line
// over maxLineBytes is consumed and dropped, with tooLong set. err is
// io.EOF after the last line.
func readLine(br *bufio.Reader, buf []byte) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLineBytes+1 {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), tooLong, err
	}
}

// trimLine drops a trailing CR, surrounding blanks and, on the first line,
// a UTF-8 byte order mark.
func trimLine(b []byte, line int) []byte {
	if line == 1 {
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	return bytes.TrimSpace(b)
}
