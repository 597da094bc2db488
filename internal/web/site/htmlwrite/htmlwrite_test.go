package htmlwrite

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
)

// contexts pairs each writer with templates that put a string where
// html/template escapes it as the writer does; the template's text around
// the action is written as it is.
var contexts = []struct {
	name, tpl string
	write     func(*strings.Builder, string)
}{
	{"text", `<p>{{.}}</p>`, Text},
	{"attribute", `<img alt="{{.}}">`, Text},
	{"single-quoted attribute", `<rect fill='{{.}}'/>`, Text},
	{"rcdata", `<textarea>{{.}}</textarea>`, Text},
	{"whole URL", `<a href="{{.}}">`, URL},
	{"image source", `<img src="{{.}}">`, URL},
	{"URL after its start", `<a href="/notes/{{.}}">`, URLPart},
	{"URL query", `<a href="/search?q={{.}}">`, Query},
	{"URL fragment", `<a href="/docs#{{.}}">`, Query},
}

// hostile are strings that html/template escapes in every way it can.
var hostile = []string{
	`<script>alert("x")</script>`,
	`"><img src=x onerror=alert(1)>`,
	"it's a+b & c\x00d",
	"javascript:alert(1)",
	"JavaScript:alert(1)",
	"data:text/html,<b>x</b>",
	"mailto:nose@example.com",
	"HTTPS://cdn.example/img/a b.webp?x=1&y=2+3#frag",
	"/perfumes/%41%zz%4",
	"%", "%4", "%41",
	"/notes/a:b",
	"a/b:c",
	"//evil.example/ x",
	"é ü 香水 \uFDD0 \uFFFE \xff\xfe",
	"back\\slash {braces} |pipe| ^caret^ `tick` ~tilde~ (paren) !#$*,;=?@[]",
	"",
	"   ",
	"plain",
}

// FuzzWriters: each writer writes a string as html/template writes it in
// the contexts the writer stands for.
func FuzzWriters(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	tpls := make([]*template.Template, len(contexts))
	for i, c := range contexts {
		tpls[i] = template.Must(template.New(c.name).Parse(c.tpl))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, c := range contexts {
			var b bytes.Buffer
			if err := tpls[i].Execute(&b, s); err != nil {
				t.Fatal(err)
			}
			want := b.String()
			start, end := strings.IndexByte(c.tpl, '{'), strings.LastIndexByte(c.tpl, '}')
			prefix, suffix := c.tpl[:start], c.tpl[end+1:]
			if !strings.HasPrefix(want, prefix) || !strings.HasSuffix(want, suffix) {
				t.Fatalf("%s: html/template wrote %q around %q", c.name, want, s)
			}
			want = want[len(prefix) : len(want)-len(suffix)]
			var got strings.Builder
			c.write(&got, s)
			if got.String() != want {
				t.Errorf("%s: %q written as %q, html/template writes %q", c.name, s, got.String(), want)
			}
		}
	})
}
