package client

// The types and the low-level client are generated from the service's
// OpenAPI document; TestGeneratedCodeMatchesTheDocument fails when they
// drift from it.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../internal/api/openapi.json
