package bundled

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
)

// The bundled catalogue's terms as its sources report them: Fragrantica
// community data under Creative Commons Attribution-NonCommercial-ShareAlike
// 4.0 (see README.md in this folder). The service's code is Apache-2.0; the
// data is not, and an operator who charges for access needs data licensed
// for that.
const (
	Licence     = "CC BY-NC-SA 4.0"
	LicenceName = "Creative Commons Attribution-NonCommercial-ShareAlike 4.0 International"
	LicenceURL  = "https://creativecommons.org/licenses/by-nc-sa/4.0/"
	// Attribution is the credit the licence asks of whoever shows the data.
	Attribution = "Perfume data: the Fragrantica community (fragrantica.com), from public datasets"
	SourceURL   = "https://www.fragrantica.com/"
)

// CountServed reads the bundled catalogue and counts its perfumes for
// which served reports that the catalogue being served holds them as
// bundled (same id, name and rating count): how much of what is served is
// the bundled data. It reads the embedded file each time (some 0.3 s).
func CountServed(served func(id int64, name string, ratingCount int) bool) (n, total int, err error) {
	zr, err := gzip.NewReader(Catalogue())
	if err != nil {
		return 0, 0, fmt.Errorf("bundled catalogue: %w", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var rec struct {
			ID          int64  `json:"fragranticaId"`
			Name        string `json:"name"`
			RatingCount int    `json:"ratingCount"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return n, total, fmt.Errorf("bundled catalogue line %d: %w", total+1, err)
		}
		total++
		if served(rec.ID, rec.Name, rec.RatingCount) {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return n, total, fmt.Errorf("bundled catalogue: %w", err)
	}
	return n, total, nil
}
