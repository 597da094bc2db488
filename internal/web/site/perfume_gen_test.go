package site

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"reflect"
	"testing"

	"github.com/fragrance-data/fragrance/internal/web"
	"github.com/fragrance-data/fragrance/internal/web/site/tplgen"
)

var update = flag.Bool("update", false, "write perfume_gen.go from templates/perfume.html (go generate)")

// perfumeWriter is how perfume_gen.go is generated: template "perfume"
// of templates/perfume.html, over the area's partials, with the
// website's functions and the ground's that take no site (the others
// are closures, which the generated code cannot call).
func perfumeWriter() tplgen.Config {
	funcs := maps.Clone(funcs())
	funcs["num"], funcs["dec"] = web.Thousands, web.Decimal
	return tplgen.Config{
		Package:  "site",
		PkgPath:  reflect.TypeFor[Site]().PkgPath(),
		Func:     "writePerfume",
		FS:       templateFS,
		Files:    []string{"templates/perfume.html", "templates/_*.html"},
		Template: "perfume",
		Data:     reflect.TypeFor[*perfumePage](),
		Funcs:    funcs,
		Command:  "go generate ./internal/web/site",
	}
}

// TestPerfumeWriterIsGenerated: perfume_gen.go is what
// templates/perfume.html generates now, so that an edit of the template
// shows on the page; with -update (go generate), it is written.
func TestPerfumeWriterIsGenerated(t *testing.T) {
	src, err := tplgen.Generate(perfumeWriter())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("perfume_gen.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile("perfume_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatal("perfume_gen.go is not what templates/perfume.html generates: run `go generate ./internal/web/site` and commit the result")
	}
}
