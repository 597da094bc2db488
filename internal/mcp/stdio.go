package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine bounds one line (one JSON-RPC message or batch) read over
// stdio; a longer line is answered a parse error and skipped.
const MaxStdioLine = 4 << 20

// JSON-RPC error codes of a line that is not a message.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// ServeStdio runs s over stdio: JSON-RPC messages one a line on in, the
// answers on out. The SDK's transport ends the session at the first line
// it cannot decode, so each line is checked first: a line that is not
// JSON is answered a parse error (-32700, id null), a JSON line that is
// not a JSON-RPC message (nor a batch of them) an invalid request
// (-32600, with the line's id when it has one), and the server goes on
// with the next line. Empty lines are skipped. It returns when in ends or
// ctx is done.
func ServeStdio(ctx context.Context, s *mcpsdk.Server, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(forwardMessages(in, pw, w)) }()
	defer pr.Close()
	return s.Run(ctx, &mcpsdk.IOTransport{Reader: pr, Writer: w})
}

// forwardMessages copies the lines of in that are JSON-RPC messages to
// msgs and answers the others on answers; it returns nil at the end of in.
func forwardMessages(in io.Reader, msgs io.Writer, answers io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		tooLong := false
		line = append(line[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = r.ReadSlice('\n')
			if len(line)+len(chunk) > MaxStdioLine {
				tooLong = true
				line = line[:0]
			}
			if !tooLong {
				line = append(line, chunk...)
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
		if msg := bytes.TrimSpace(line); tooLong || len(msg) > 0 {
			if ans := checkLine(msg, tooLong); ans != nil {
				if _, werr := answers.Write(ans); werr != nil {
					return werr
				}
			} else if _, werr := msgs.Write(append(msg, '\n')); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// checkLine returns the error answer of a line that is not a JSON-RPC
// message or batch, nil for one that is.
func checkLine(line []byte, tooLong bool) []byte {
	switch {
	case tooLong:
		return errorAnswer(nil, codeParseError, "Parse error: the line is longer than "+strconv.Itoa(MaxStdioLine>>20)+" MiB")
	case !json.Valid(line):
		return errorAnswer(nil, codeParseError, "Parse error: the line is not JSON")
	}
	var batch []json.RawMessage
	if line[0] == '[' && json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 {
			return errorAnswer(nil, codeInvalidRequest, "Invalid Request: an empty batch")
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return errorAnswer(idOf(m), codeInvalidRequest, "Invalid Request: "+err.Error())
			}
		}
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorAnswer(idOf(line), codeInvalidRequest, "Invalid Request: "+err.Error())
	}
	return nil
}

// idOf is the id of a JSON object when it is a string or a number, else
// nil (JSON-RPC's null id).
func idOf(msg []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// errorAnswer is a JSON-RPC error response line.
func errorAnswer(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(b, '\n')
}

// lockedWriter serialises the writes of the SDK's transport and of the
// error answers, each a whole line in one Write; Close leaves the
// underlying writer open (stdout).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
