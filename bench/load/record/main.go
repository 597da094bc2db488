// Command record records the service's answers for the load benchmark's
// ceiling (bench/load/ceiling --answers DIR): for each path of a file, one
// a line, it sends GET with the API key and writes the status line and
// headers to DIR/N.head (as curl -D does) and the body to DIR/N.body, and
// "PATH TAB N" to DIR/index.tsv. A few workers fetch at once: the cold and
// zipf mixes record tens of thousands of answers, which took curl, one
// process per path, minutes.
//
// It prints the number of answers and their bodies' total size in bytes,
// "N BYTES". Any answer other than 200 stops it with an error naming the path: the
// ceiling would replay it, and the comparison would be of different work.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	base := flag.String("base", "", "the service's base URL, e.g. http://127.0.0.1:8080 (required)")
	key := flag.String("key", "", "API key sent as X-API-Key [FRAGRANCE_BENCH_KEY]")
	paths := flag.String("paths", "", "file of request paths, one a line (required)")
	dir := flag.String("dir", "", "directory to write index.tsv, N.head and N.body into (required)")
	workers := flag.Int("workers", 4, "requests in flight at once")
	flag.Parse()
	if *key == "" {
		*key = os.Getenv("FRAGRANCE_BENCH_KEY")
	}
	n, size, err := run(*base, *key, *paths, *dir, *workers)
	if err != nil {
		log.Fatalf("record: %v", err)
	}
	fmt.Println(n, size)
}

// run records the answers and returns how many and their bodies' size.
func run(base, key, pathsFile, dir string, workers int) (int, int64, error) {
	if base == "" || pathsFile == "" || dir == "" {
		return 0, 0, errors.New("--base, --paths and --dir are required")
	}
	b, err := os.ReadFile(pathsFile)
	if err != nil {
		return 0, 0, err
	}
	var paths []string
	for l := range strings.Lines(string(b)) {
		if p := strings.TrimRight(l, "\r\n"); p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return 0, 0, fmt.Errorf("%s: no paths", pathsFile)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	// No compression: the answers as wrk, which asks for none, gets them.
	client := &http.Client{
		Timeout:   time.Minute,
		Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: workers},
	}
	work := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	var size atomic.Int64
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range work {
				n, err := fetch(client, base, key, paths[i], filepath.Join(dir, strconv.Itoa(i)))
				if err != nil {
					errs <- err
					return
				}
				size.Add(n)
			}
		})
	}
	var first error
send:
	for i := range paths {
		select {
		case work <- i:
		case first = <-errs:
			break send
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	if first == nil {
		first = <-errs // nil when none failed
	}
	if first != nil {
		return 0, 0, first
	}
	return len(paths), size.Load(), writeIndex(dir, paths)
}

// fetch gets path, writes name.head and name.body, and returns the body's
// size.
func fetch(client *http.Client, base, key, path, name string) (int64, error) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return 0, fmt.Errorf("GET %s: %s: %s", path, resp.Status, msg)
	}
	body, err := os.Create(name + ".body")
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(body, resp.Body)
	if err != nil {
		body.Close()
		return 0, fmt.Errorf("GET %s: %w", path, err)
	}
	if err := body.Close(); err != nil {
		return 0, err
	}
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s\r\n", resp.Proto, resp.Status)
	resp.Header.Write(&head)
	head.WriteString("\r\n")
	return n, os.WriteFile(name+".head", []byte(head.String()), 0o644)
}

func writeIndex(dir string, paths []string) error {
	f, err := os.Create(filepath.Join(dir, "index.tsv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, p := range paths {
		fmt.Fprintf(w, "%s\t%d\n", p, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
