#!/usr/bin/env bash
# Regenerates the three clients' types and endpoints from the service's
# OpenAPI document (internal/api/openapi.json): run it after changing the
# document, and commit what it changes. Each client has a test that fails
# while its generated code differs from what the document generates.
#   Go:         client/api.gen.go           (oapi-codegen, through go generate)
#   Python:     clients/python/src/fragrance_client/_generated.py (tools/generate.py)
#   TypeScript: clients/typescript/src/schema.d.ts (openapi-typescript, from
#               npm into a temporary folder; nothing from npm is committed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go generate ./client
python3 clients/python/tools/generate.py
npm_dir=$(mktemp -d)
trap 'rm -rf "$npm_dir"' EXIT
version=$(python3 -c 'import json; print(json.load(open("clients/typescript/package.json"))["devDependencies"]["openapi-typescript"])')
npm install --no-save --no-audit --no-fund --prefix "$npm_dir" "openapi-typescript@$version" >/dev/null
node "$npm_dir/node_modules/openapi-typescript/bin/cli.js" internal/api/openapi.json -o clients/typescript/src/schema.d.ts
git status --short client clients
