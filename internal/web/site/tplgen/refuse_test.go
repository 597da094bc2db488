package tplgen

import (
	"html/template"
	"strings"
	"testing"
	"testing/fstest"
)

// TestGenerateRefusesWhatItCannotCompile: a template the generator cannot
// compile to the same bytes is an error that says where and why, never a
// writer that writes something else.
func TestGenerateRefusesWhatItCannotCompile(t *testing.T) {
	tests := []struct{ name, tpl, want string }{
		{"unquoted attribute", `<a title={{.Title}}>`, "no writer for"},
		{"script", `<script>var t = {{.Title}};</script>`, "_html_template_jsvalescaper"},
		{"style attribute", `<p style="color: {{.Title}}">`, "no writer for"},
		{"typed HTML in an attribute", `<p title="{{.HTML}}">`, "template.HTML value in an attribute"},
		{"a builtin it does not compile", `{{index .Tags 0}}`, "does not compile the function index"},
		{"range over a number", `{{range .Count}}{{end}}`, "ranges over slices and arrays only"},
		{"recursion", `{{template "page" .Nested}}`, "calls itself"},
		{"a closure", `{{add 1 2}}`, "is a closure"},
		{"an unknown field", `{{.Nope}}`, "can't evaluate field Nope"},
		{"wrong number of arguments", `{{double 1 2}}`, "wrong number of arguments for double"},
		{"a template called in an attribute", `<p title="{{template "part" .}}">`, "is not defined, or is called where"},
		{"ordering booleans", `{{if lt .On true}}{{end}}`, "invalid kind for ordering"},
		{"incompatible comparison", `{{if eq .Count "1"}}{{end}}`, "incompatible types"},
		{"and as a value over strings", `{{and .Title .URL}}`, "over booleans only"},
		{"html/template's own error", `{{if .On}}<a href="{{end}}">`, "html/template"},
	}
	funcs := template.FuncMap{"double": double, "add": func(a, b int) int { return a + b }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sampleWriter()
			cfg.FS = fstest.MapFS{"page.html": {Data: []byte(`{{define "page"}}` + tt.tpl + `{{end}}{{define "part"}}x{{end}}`)}}
			cfg.Files, cfg.Template, cfg.Funcs = []string{"page.html"}, "page", funcs
			_, err := Generate(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Generate = %v, want an error with %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "page.html") && tt.name != "html/template's own error" {
				t.Errorf("the error %q does not name the template file", err)
			}
		})
	}
}
