package importer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/fragrance-data/fragrance/internal/catalog"
)

// Decoding JSON is most of the cost of an import, so lines are parsed in
// batches by a few workers while one goroutine reads and one collects the
// results in file order. Only the collector touches the Result.
const (
	batchLines = 512
	maxWorkers = 4
)

// batch is a run of consecutive non-blank lines and, once done is closed,
// what became of each.
type batch struct {
	buf     []byte
	lines   []batchLine
	results []lineResult
	done    chan struct{}
}

type batchLine struct {
	line       int
	start, end int  // the line's bytes in buf
	tooLong    bool // the line was dropped for its length
}

type lineResult struct {
	line   int
	p      catalog.Perfume
	reason string
}

// parse fills b.results; it runs on a worker.
func (b *batch) parse(im *Importer) {
	b.results = make([]lineResult, len(b.lines))
	for i, l := range b.lines {
		r := &b.results[i]
		r.line = l.line
		if l.tooLong {
			r.reason = fmt.Sprintf("line longer than %d bytes", maxLineBytes)
			continue
		}
		r.p, r.reason = im.parseJSONLine(b.buf[l.start:l.end])
	}
	close(b.done)
}

// parseBatches parses every line of br and hands the batches to collect
// one at a time, in file order. It returns the read error, if any, after
// the batches read before it were collected.
func (im *Importer) parseBatches(br *bufio.Reader, collect func(*batch)) error {
	workers := min(runtime.GOMAXPROCS(0), maxWorkers)
	if im.workers > 0 {
		workers = im.workers
	}
	work := make(chan *batch, 2*workers)
	ordered := make(chan *batch, 2*workers)
	for range workers {
		go func() {
			for b := range work {
				b.parse(im)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		readErr = readBatches(br, func(b *batch) {
			work <- b
			ordered <- b
		})
	}()
	for b := range ordered {
		<-b.done
		collect(b)
	}
	return readErr // safe: written before ordered was closed
}

// readBatches splits br into batches of non-blank lines and sends each.
func readBatches(br *bufio.Reader, send func(*batch)) error {
	size := 64 << 10
	newBatch := func() *batch {
		return &batch{buf: make([]byte, 0, size), lines: make([]batchLine, 0, batchLines), done: make(chan struct{})}
	}
	b := newBatch()
	var buf []byte
	for line := 1; ; line++ {
		var tooLong bool
		var err error
		buf, tooLong, err = readLine(br, buf[:0])
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if tooLong {
			b.lines = append(b.lines, batchLine{line: line, tooLong: true})
		} else if text := trimLine(buf, line); len(text) > 0 {
			start := len(b.buf)
			b.buf = append(b.buf, text...)
			b.lines = append(b.lines, batchLine{line: line, start: start, end: len(b.buf)})
		}
		if len(b.lines) == batchLines || err != nil {
			if len(b.lines) > 0 {
				size = max(size, len(b.buf)+len(b.buf)/8) // the next batch is likely alike
				send(b)
				b = newBatch()
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}
