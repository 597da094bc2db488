import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { documentPath, packageRoot } from "./root.js";

test("schema.d.ts is what openapi-typescript makes of the OpenAPI document", () => {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve("openapi-typescript/package.json"));
  const bin = path.join(pkg, "bin", "cli.js");
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "schema-")), "schema.d.ts");
  execFileSync(process.execPath, [bin, documentPath, "-o", out], { stdio: "pipe" });
  const want = readFileSync(out, "utf8");
  const have = readFileSync(path.join(packageRoot, "src", "schema.d.ts"), "utf8");
  assert.ok(have === want, "src/schema.d.ts is not what internal/api/openapi.json generates: run `npm run generate` (or clients/generate.sh) and commit it");
});
