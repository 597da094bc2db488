package mcp

import (
	"context"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceEndpoint is the name a resources/read is admitted and metered
// under, after Endpoint + ".".
const ResourceEndpoint = "resource"

// freeMethods are the methods that read nothing of the catalogue: the
// handshake, pings and notifications, the listings of what the server
// offers (fixed at build), and the prompt, which writes its text from its
// own arguments. tools/call is here because each tool passes its call
// through the Gate itself, under the tool's own endpoint.
var freeMethods = map[string]bool{
	"initialize":               true,
	"server/discover":          true,
	"ping":                     true,
	"tools/list":               true,
	"tools/call":               true,
	"resources/list":           true,
	"resources/templates/list": true,
	"prompts/list":             true,
	"prompts/get":              true,
	"logging/setLevel":         true,
}

// gateReads passes every method that may read the catalogue through gate,
// as one call of the key: resources/read as ResourceEndpoint, any other
// method not in freeMethods under its own name ("/" made "_"), so a
// method the SDK learns later is counted rather than free.
func gateReads(gate Gate) mcpsdk.Middleware {
	return func(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
		return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
			if freeMethods[method] || strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			name := strings.ReplaceAll(method, "/", "_")
			if method == "resources/read" {
				name = ResourceEndpoint
			}
			var res mcpsdk.Result
			err := gate(ctx, name, func() error {
				var err error
				res, err = next(ctx, method, req)
				return err
			})
			return res, err
		}
	}
}
