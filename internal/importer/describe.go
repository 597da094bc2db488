package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// blockTags end a paragraph when stripped; every other tag just vanishes,
// so "<b>Alien</b> by" reads "Alien by".
var blockTags = map[string]bool{
	"p": true, "br": true, "div": true, "li": true, "ul": true, "ol": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"blockquote": true, "tr": true, "table": true, "hr": true,
}

// stripTags removes HTML tags. A "<" starts a tag only when a letter, "/"
// or "!" follows it, so prose such as "a < b" survives. An unclosed tag
// runs to the end of the text and is dropped.
func stripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i == len(s)-1 {
			b.WriteString(s)
			break
		}
		if !isTagStart(s[i+1]) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		if blockTags[tagName(s[i+1:i+end])] {
			b.WriteString("\n\n")
		}
		s = s[i+end+1:]
	}
	return b.String()
}

func isTagStart(c byte) bool {
	return c == '/' || c == '!' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// tagName returns the lowercase element name of a tag body such as
// "/p", "br/" or `a href="x"`.
func tagName(body string) string {
	body = strings.TrimPrefix(body, "/")
	end := strings.IndexAny(body, " \t\r\n/")
	if end >= 0 {
		body = body[:end]
	}
	return strings.ToLower(body)
}

// describe builds the plain factual description used when the source has
// none, from brand, year, gender, main accords and key notes:
// "Light Blue by Dolce&Gabbana is a fragrance for women, launched in 2001.
// Its main accords are citrus, woody and aquatic. Key notes include Lemon,
// Bamboo and Cedar."
func describe(p *catalog.Perfume) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s by %s is a fragrance %s", p.Name, p.Brand, audience(p.Gender))
	if p.Year > 0 {
		fmt.Fprintf(&b, ", launched in %d", p.Year)
	}
	b.WriteString(".")
	var accords []string
	for _, a := range p.Accords {
		if len(accords) == 3 {
			break
		}
		accords = append(accords, a.Name)
	}
	switch len(accords) {
	case 0:
	case 1:
		fmt.Fprintf(&b, " Its main accord is %s.", accords[0])
	default:
		fmt.Fprintf(&b, " Its main accords are %s.", joinAnd(accords))
	}
	if notes := keyNotes(p.Notes, 4); len(notes) > 0 {
		fmt.Fprintf(&b, " Key notes include %s.", joinAnd(notes))
	}
	return b.String()
}

func audience(g catalog.Gender) string {
	switch g {
	case catalog.Feminine:
		return "for women"
	case catalog.Masculine:
		return "for men"
	}
	return "for women and men"
}

// keyNotes picks up to n notes: the first of each pyramid layer, so the
// sentence spans opening to drydown, then the rest in layer order.
func keyNotes(p catalog.NotePyramid, n int) []string {
	out := make([]string, 0, n)
	layers := [][]string{p.Top, p.Middle, p.Base, p.Unplaced}
	for _, layer := range layers[:3] {
		if len(layer) > 0 && len(out) < n && !slices.Contains(out, layer[0]) {
			out = append(out, layer[0])
		}
	}
	for _, layer := range layers {
		for _, note := range layer {
			if len(out) < n && !slices.Contains(out, note) {
				out = append(out, note)
			}
		}
	}
	return out
}

// tidyBoilerplate writes the family in Fragrantica's boilerplate first
// sentence as English writes it, which the source does not: "is a
// Aromatic Fougere fragrance for men" becomes "is an aromatic fougère
// fragrance for men" (the article its first sound takes, lower case, the
// family's accents).
func tidyBoilerplate(desc string) string {
	m := familyPattern.FindStringSubmatchIndex(desc)
	if m == nil {
		return desc
	}
	family := strings.ToLower(familySpelling(desc[m[2]:m[3]]))
	article := "a"
	if strings.ContainsRune("aeiou", rune(family[0])) {
		article = "an"
	}
	return desc[:m[0]] + "is " + article + " " + family + desc[m[3]:]
}

// familyAccents are the words of family names that Fragrantica's data
// writes without their accents.
var familyAccents = strings.NewReplacer("Fougere", "Fougère", "fougere", "fougère")

// familySpelling is a family name with its accents ("Aromatic Fougère").
func familySpelling(family string) string { return familyAccents.Replace(family) }

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
