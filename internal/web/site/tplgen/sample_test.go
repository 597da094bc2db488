package tplgen

import (
	"bytes"
	"errors"
	"flag"
	"html/template"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write sample_gen_test.go from testdata/sample.html (go generate)")

// sample is the data of testdata/sample.html: a field of each kind the
// generator writes differently.
type sample struct {
	Title  string
	Count  int
	Small  int8
	Big    uint64
	Ratio  float64
	Ptr    *int
	Name   *string
	On     bool
	HTML   template.HTML
	Link   template.URL
	URL    string
	Items  []item
	Tags   []string
	Nums   [3]int
	Level  level
	Nested *sample
	Empty  []item
}

type item struct {
	Name  string
	Score float64
	Note  *string
}

// level prints itself.
type level int

func (l level) String() string { return "level<" + strconv.Itoa(int(l)) + ">" }

// Greeting is a method with an argument.
func (s sample) Greeting(who string) string { return s.Title + ", hello " + who }

// Failing is a method of the pointer that fails on a negative count.
func (s *sample) Failing() (string, error) {
	if s.Count < 0 {
		return "", errors.New("negative count")
	}
	return "fine", nil
}

func double(n int) int { return 2 * n }

// checked fails on a count of 13.
func checked(n int) (string, error) {
	if n == 13 {
		return "", errors.New("unlucky")
	}
	return "ok", nil
}

var sampleFuncs = template.FuncMap{"upper": strings.ToUpper, "join": strings.Join, "double": double, "checked": checked}

func sampleWriter() Config {
	return Config{
		Package:  "tplgen",
		PkgPath:  reflect.TypeFor[Config]().PkgPath(),
		Func:     "writeSample",
		FS:       os.DirFS("."),
		Files:    []string{"testdata/sample.html"},
		Template: "sample",
		Data:     reflect.TypeFor[*sample](),
		Funcs:    sampleFuncs,
		Command:  "go generate ./internal/web/site/tplgen",
	}
}

// TestSampleWriterIsGenerated: sample_gen_test.go is what
// testdata/sample.html generates now; with -update (go generate), it is
// written.
func TestSampleWriterIsGenerated(t *testing.T) {
	src, err := Generate(sampleWriter())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("sample_gen_test.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile("sample_gen_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatal("sample_gen_test.go is not what testdata/sample.html generates: run `go generate ./internal/web/site/tplgen`")
	}
}

// hostile are texts that html/template escapes in every way it can.
var hostile = []string{
	`<script>alert("x")</script>`, `"><img src=x onerror=alert(1)>`, "it's a+b & c\x00d",
	"javascript:alert(1)", "JavaScript:alert(1)", "mailto:a@b.example", "HTTPS://cdn.example/a b.webp?x=1&y=2+3#frag",
	"/p/%41%zz%4", "é 香水 \uFDD0 \xff\xfe", "back\\slash {b} |p| ^c^ `t` ~t~ (p) !#$*,;=?@[]", "", "plain",
}

// samples are data that take every branch of the sample template.
func samples() []*sample {
	n, note := 7, "a note"
	var out []*sample
	out = append(out, &sample{}, &sample{Count: -1}, &sample{Count: 13})
	for i, h := range hostile {
		name := hostile[(i+1)%len(hostile)]
		s := &sample{
			Title: h, Count: i, Small: int8(i - 3), Big: uint64(i) << 40, Ratio: []float64{0, 0.1 + 0.2, 1e21, 1e-7, 0.5, 100}[i%6],
			On: i%2 == 0, HTML: template.HTML("<b>" + h + "</b>"), Link: template.URL(h), URL: h, Level: level(i),
			Tags: hostile[:i%4], Nums: [3]int{i, -i, 0},
		}
		if i%3 != 0 {
			s.Ptr, s.Name = &n, &name
		}
		for j := range i % 7 {
			it := item{Name: hostile[(i+j)%len(hostile)], Score: float64(j) / 3}
			if j%2 == 1 {
				it.Note = &note
			}
			s.Items = append(s.Items, it)
		}
		if i%4 == 1 {
			s.Nested = &sample{Title: "nested " + h, On: i%8 == 1, Ptr: &n}
		}
		out = append(out, s)
	}
	return out
}

// TestSampleWriterMatchesHTMLTemplate: for every sample, the generated
// writer writes what html/template writes from the template, and fails
// where it fails.
func TestSampleWriterMatchesHTMLTemplate(t *testing.T) {
	tpl := template.Must(template.New("sample").Funcs(sampleFuncs).ParseFiles("testdata/sample.html"))
	for i, s := range samples() {
		var want bytes.Buffer
		wantErr := tpl.ExecuteTemplate(&want, "sample", s)
		var got strings.Builder
		gotErr := writeSample(&got, s)
		switch {
		case (gotErr == nil) != (wantErr == nil):
			t.Errorf("sample %d: the writer's error is %v, html/template's %v", i, gotErr, wantErr)
		case wantErr == nil && got.String() != want.String():
			t.Errorf("sample %d: the writer wrote\n%s\nhtml/template\n%s", i, got.String(), want.String())
		}
	}
}
