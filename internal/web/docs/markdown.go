package docs

import (
	"cmp"
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/fragrance-data/fragrance/internal/search"
)

// markdown renders the small part of Markdown the OpenAPI document's
// descriptions use: paragraphs, "#" headings, "- " lists (with indented
// continuation lines), pipe tables, `code` and **bold**. Every text is
// escaped first; only the tags written here are HTML. Headings get ids
// (idPrefix and the heading's slug) when idPrefix is not empty.
func markdown(src, idPrefix string) template.HTML {
	var b strings.Builder
	heading, tables := "", map[string]int{} // a table's region is named after its heading
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(src), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := strings.TrimSpace(line[level:])
			heading = text
			tag := "h3"
			if level >= 3 {
				tag = "h4"
			}
			b.WriteString("<" + tag)
			if idPrefix != "" {
				b.WriteString(` id="` + idPrefix + search.Slugify(text) + `"`)
			}
			b.WriteString(">" + inline(text) + "</" + tag + ">\n")
			i++
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(lines[j], "|") {
				j++
			}
			name := cmp.Or(heading, "Table")
			if tables[name]++; tables[name] > 1 {
				name += " " + strconv.Itoa(tables[name])
			}
			table(&b, name, lines[i:j])
			i = j
		case strings.HasPrefix(line, "- "):
			b.WriteString("<ul>\n")
			for i < len(lines) && strings.HasPrefix(lines[i], "- ") {
				item := strings.TrimPrefix(lines[i], "- ")
				i++
				for i < len(lines) && strings.HasPrefix(lines[i], "  ") && strings.TrimSpace(lines[i]) != "" {
					item += " " + strings.TrimSpace(lines[i])
					i++
				}
				b.WriteString("<li>" + inline(item) + "</li>\n")
			}
			b.WriteString("</ul>\n")
		default:
			var para []string
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" && !startsBlock(lines[i]) {
				para = append(para, strings.TrimSpace(lines[i]))
				i++
			}
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
		}
	}
	return template.HTML(b.String())
}

// startsBlock reports whether a line begins a block other than a
// paragraph.
func startsBlock(line string) bool {
	return strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") || strings.HasPrefix(line, "- ")
}

// table writes a pipe table: a header row, a separator row, body rows. It
// sits in a region named name that scrolls sideways on a narrow screen.
func table(b *strings.Builder, name string, rows []string) {
	cells := func(row string) []string {
		row = strings.TrimSpace(row)
		row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
		out := strings.Split(row, "|")
		for i := range out {
			out[i] = strings.TrimSpace(out[i])
		}
		return out
	}
	b.WriteString(`<div class="scroll" role="region" aria-label="` + html.EscapeString(name) + `" tabindex="0"><table>` + "\n")
	for i, row := range rows {
		if i == 1 && strings.Trim(row, "|-: ") == "" {
			continue
		}
		tag := "td"
		if i == 0 {
			tag = "th"
			b.WriteString("<thead>")
		}
		b.WriteString("<tr>")
		for _, c := range cells(row) {
			if tag == "th" {
				b.WriteString(`<th scope="col">` + inline(c) + "</th>")
			} else {
				b.WriteString("<td>" + inline(c) + "</td>")
			}
		}
		b.WriteString("</tr>")
		if i == 0 {
			b.WriteString("</thead><tbody>")
		}
		b.WriteString("\n")
	}
	b.WriteString("</tbody></table></div>\n")
}

// inline escapes text and marks up its `code` spans and **bold** runs.
func inline(text string) string {
	var b strings.Builder
	parts := strings.Split(text, "`")
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
		case i%2 == 1: // an unclosed backtick stays a backtick
			b.WriteString("`" + bold(html.EscapeString(p)))
		default:
			b.WriteString(bold(html.EscapeString(p)))
		}
	}
	return b.String()
}

// bold marks up **runs** of escaped text.
func bold(s string) string {
	parts := strings.Split(s, "**")
	if len(parts) < 3 {
		return s
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 1 && i < len(parts)-1:
			b.WriteString("<strong>" + p + "</strong>")
		case i%2 == 1:
			b.WriteString("**" + p)
		default:
			b.WriteString(p)
		}
	}
	return b.String()
}
