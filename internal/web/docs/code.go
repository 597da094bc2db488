package docs

import (
	"bytes"
	"encoding/json"
	"strings"
)

// KeyEnv is the environment variable the generated code reads the key
// from: a key never stands in code, a URL or a shell's history.
const KeyEnv = "FRAGRANCE_API_KEY"

// Snippet is the code of one request in one language.
type Snippet struct {
	// Lang is the short name ("curl", "js", "python", "go"); Label the
	// name shown.
	Lang, Label string
	Code        string
}

// header is one request header of a snippet; Key marks the API key, whose
// value each language reads from KeyEnv.
type header struct {
	Name, Value string
	Key         bool
}

// Snippets is the code of the request of s in curl, JavaScript (fetch),
// Python (requests), Go, and through the Python and TypeScript clients,
// against base (and imageBase for the image host). The playground's script writes the same code in the browser
// (playground.js: snippets); the tests hold the two together.
func (s State) Snippets(base, imageBase string) []Snippet {
	u := s.RequestURL(base, imageBase)
	var hs []header
	if !s.Endpoint.Keyless {
		hs = append(hs, header{Name: "X-API-Key", Key: true})
	}
	for _, p := range s.Endpoint.Params {
		if v := s.Values.Get(p.Name); p.In == "header" && v != "" {
			hs = append(hs, header{Name: p.Name, Value: v})
		}
	}
	m, body := s.Endpoint.Method, s.Endpoint.Body
	py, ts := s.clientCode(base)
	return []Snippet{
		{"curl", "curl", curlCode(m, u, hs)},
		{"js", "JavaScript", jsCode(m, u, hs, body)},
		{"python", "Python", pythonCode(m, u, hs, body)},
		{"go", "Go", goCode(m, u, hs, body)},
		{"pyclient", "Python client", py},
		{"tsclient", "TypeScript client", ts},
	}
}

// clientCode is the request of s through the repository's Python and
// TypeScript clients (clients/python, clients/typescript), which call
// every JSON endpoint under /api by its operationId (Python) or its path
// (TypeScript, openapi-fetch); the other endpoints are a comment.
func (s State) clientCode(base string) (py, ts string) {
	e := s.Endpoint
	if e.Method != "GET" || e.Body != "json" || !strings.HasPrefix(e.Path, "/api/") || e.Path == "/api/openapi.json" {
		return "# the Python client calls the JSON endpoints under /api; this one is plain HTTP (above)",
			"// the TypeScript client calls the JSON endpoints under /api; this one is plain HTTP (above)"
	}
	var args, pathArgs, queryArgs []string
	for _, p := range e.Params {
		v := s.Values.Get(p.Name)
		lit := strQuote(v)
		if p.Integer() && isWhole(v) {
			lit = v
		}
		switch {
		case p.In == "path":
			args = append(args, strQuote(v))
			pathArgs = append(pathArgs, p.Name+": "+strQuote(v))
		case p.In == "query" && v != "":
			args = append(args, snakeCase(p.Name)+"="+lit)
			queryArgs = append(queryArgs, strQuote(p.Name)+": "+lit)
		}
	}
	py = "from fragrance_client import Client\n\n" +
		"c = Client(" + strQuote(base) + ")  # the key from " + KeyEnv + "\n" +
		"print(c." + snakeCase(e.ID) + "(" + strings.Join(args, ", ") + "))"
	var params []string
	if len(pathArgs) > 0 {
		params = append(params, "path: { "+strings.Join(pathArgs, ", ")+" }")
	}
	if len(queryArgs) > 0 {
		params = append(params, "query: { "+strings.Join(queryArgs, ", ")+" }")
	}
	opts := ""
	if len(params) > 0 {
		opts = ", { params: { " + strings.Join(params, ", ") + " } }"
	}
	ts = "import { FragranceClient } from \"fragrance-client\";\n\n" +
		"const c = new FragranceClient(" + strQuote(base) + "); // the key from " + KeyEnv + "\n" +
		"const { data, error, response } = await c.api.GET(" + strQuote(e.Path) + opts + ");\n" +
		"console.log(response.status, data ?? error);"
	return py, ts
}

// isWhole reports whether v is a whole number as written.
func isWhole(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// snakeCase is the Python client's name of an operationId or parameter
// (listPerfumes: list_perfumes), as clients/python/tools/generate.py
// writes it.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= '0' && s[i-1] <= '9') {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		if r == '-' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell, in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// strQuote quotes s as a JSON string, which is also a string literal of
// JavaScript, Python and Go (the script uses JSON.stringify).
func strQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	// JSON.stringify leaves U+2028 and U+2029 as they are; so does this.
	return strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(strings.TrimSuffix(b.String(), "\n"))
}

func curlCode(method, u string, hs []header) string {
	var b strings.Builder
	b.WriteString("curl -sS -i")
	if method != "GET" {
		b.WriteString(" -X " + method)
	}
	for _, h := range hs {
		if h.Key {
			b.WriteString(` -H "` + h.Name + `: $` + KeyEnv + `"`)
		} else {
			b.WriteString(" -H " + shellQuote(h.Name+": "+h.Value))
		}
	}
	b.WriteString(" " + shellQuote(u))
	return b.String()
}

func jsCode(method, u string, hs []header, body string) string {
	var b strings.Builder
	b.WriteString("const res = await fetch(" + strQuote(u))
	if method != "GET" || len(hs) > 0 {
		b.WriteString(", {\n")
		if method != "GET" {
			b.WriteString("  method: " + strQuote(method) + ",\n")
		}
		if len(hs) > 0 {
			b.WriteString("  headers: {\n")
			for _, h := range hs {
				v := strQuote(h.Value)
				if h.Key {
					v = "process.env." + KeyEnv
				}
				b.WriteString("    " + strQuote(h.Name) + ": " + v + ",\n")
			}
			b.WriteString("  },\n")
		}
		b.WriteString("}")
	}
	b.WriteString(");\n")
	switch body {
	case "json":
		b.WriteString("console.log(res.status, await res.json());")
	case "text":
		b.WriteString("console.log(res.status, await res.text());")
	default:
		b.WriteString("console.log(res.status, (await res.arrayBuffer()).byteLength, \"bytes\");")
	}
	return b.String()
}

func pythonCode(method, u string, hs []header, body string) string {
	var b strings.Builder
	for _, h := range hs {
		if h.Key {
			b.WriteString("import os\n\n")
			break
		}
	}
	b.WriteString("import requests\n\n")
	if method == "GET" {
		b.WriteString("res = requests.get(\n")
	} else {
		b.WriteString("res = requests.request(\n    " + strQuote(method) + ",\n")
	}
	b.WriteString("    " + strQuote(u) + ",\n")
	if len(hs) > 0 {
		b.WriteString("    headers={\n")
		for _, h := range hs {
			v := strQuote(h.Value)
			if h.Key {
				v = `os.environ["` + KeyEnv + `"]`
			}
			b.WriteString("        " + strQuote(h.Name) + ": " + v + ",\n")
		}
		b.WriteString("    },\n")
	}
	b.WriteString("    timeout=30,\n)\n")
	switch body {
	case "json":
		b.WriteString("print(res.status_code, res.json())")
	case "text":
		b.WriteString("print(res.status_code, res.text)")
	default:
		b.WriteString("print(res.status_code, len(res.content), \"bytes\")")
	}
	return b.String()
}

func goCode(method, u string, hs []header, body string) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n")
	for _, h := range hs {
		if h.Key {
			b.WriteString("\t\"os\"\n")
			break
		}
	}
	b.WriteString(")\n\nfunc main() {\n")
	b.WriteString("\treq, err := http.NewRequest(" + strQuote(method) + ", " + strQuote(u) + ", nil)\n")
	b.WriteString("\tif err != nil {\n\t\tpanic(err)\n\t}\n")
	for _, h := range hs {
		v := strQuote(h.Value)
		if h.Key {
			v = `os.Getenv("` + KeyEnv + `")`
		}
		b.WriteString("\treq.Header.Set(" + strQuote(h.Name) + ", " + v + ")\n")
	}
	b.WriteString("\tres, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n")
	b.WriteString("\tdefer res.Body.Close()\n\tbody, err := io.ReadAll(res.Body)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n")
	if body == "binary" {
		b.WriteString("\tfmt.Println(res.Status, len(body), \"bytes\")\n}")
	} else {
		b.WriteString("\tfmt.Println(res.Status)\n\tfmt.Println(string(body))\n}")
	}
	return b.String()
}
