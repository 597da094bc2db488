package docs

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fragrance-data/fragrance/internal/web"
)

// pgData is the playground page's data.
type pgData struct {
	// Problem is what was wrong with the page's address ("" when nothing).
	Problem string
	Tags    []pgTag
	// Current is the request the address holds; Snippets its code, URL
	// its API URL, Missing its required parameters without a value.
	Current  State
	URL      string
	Snippets []Snippet
	Missing  []string
	Keys     []web.KeyChoice
	// Remember is true when the visitor consented to preferences: the
	// script then keeps pasted keys in localStorage, else only for the tab.
	Remember  bool
	Base      string
	ImageBase string
	KeyEnv    string
}

type pgTag struct {
	Name  string
	Forms []pgForm
}

// pgForm is one endpoint's form.
type pgForm struct {
	*Endpoint
	Current bool
	Fields  []pgField
}

// pgField is one parameter's field.
type pgField struct {
	Param
	// ID is the field's id; Value what the address gave it (the current
	// endpoint's only); Warning what the API will make of that value.
	ID, Value, Warning string
	// Choices are an enum's values, with Value added when it is none of
	// them (so nothing the address held is lost).
	Choices []string
}

// playgroundData builds the page of state st.
func (d *Docs) playgroundData(st State, problem string, keys []web.KeyChoice, remember bool) pgData {
	p := pgData{Problem: problem, Current: st, URL: st.RequestURL(d.base, d.imageBase), Snippets: st.Snippets(d.base, d.imageBase),
		Missing: st.Missing(), Keys: keys, Remember: remember, Base: d.base, ImageBase: d.imageBase, KeyEnv: KeyEnv}
	for _, t := range d.doc.Tags {
		pt := pgTag{Name: t.Name}
		for _, e := range t.Endpoints {
			f := pgForm{Endpoint: e, Current: e == st.Endpoint}
			for _, prm := range e.Params {
				fd := pgField{Param: prm, ID: "f-" + e.ID + "-" + prm.Name}
				if f.Current {
					fd.Value = st.Values.Get(prm.Name)
					fd.Warning = warning(prm, fd.Value)
				}
				if len(prm.Enum) > 0 {
					fd.Choices = prm.Enum
					if fd.Value != "" && !slices.Contains(prm.Enum, fd.Value) {
						fd.Choices = append(slices.Clone(prm.Enum), fd.Value)
					}
				}
				f.Fields = append(f.Fields, fd)
			}
			pt.Forms = append(pt.Forms, f)
		}
		p.Tags = append(p.Tags, pt)
	}
	return p
}

// warning says what the document makes of value v of p: "" when it is
// within the schema. The playground still sends it (the API's answer to a
// bad value is worth seeing).
func warning(p Param, v string) string {
	if v == "" {
		return ""
	}
	if p.Type == "integer" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "Not a whole number: the API answers 400."
		}
		if lo, err := strconv.ParseInt(p.Min, 10, 64); err == nil && n < lo {
			return "Below " + p.Min + ": the API answers 400."
		}
		if hi, err := strconv.ParseInt(p.Max, 10, 64); err == nil && n > hi {
			return "Above " + p.Max + ": see the parameter's description for what the API does."
		}
	}
	if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e string) bool { return strings.EqualFold(e, v) }) {
		return "Not one of " + strings.Join(p.Enum, ", ") + ": the API answers 400."
	}
	if p.MaxLength > 0 && utf8.RuneCountInString(v) > p.MaxLength {
		return "Longer than " + strconv.Itoa(p.MaxLength) + " characters: the API answers 400."
	}
	return ""
}
