// The client against the real binary (test/clients starts it and sets the
// environment; see client/e2e_test.go for the variables).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { ApiError, FragranceClient } from "../index.js";

const base = process.env.FRAGRANCE_TEST_URL;
const skip = base ? false : "FRAGRANCE_TEST_URL not set: test/clients runs these against the built binary";
const client = () => new FragranceClient(base!); // the key from FRAGRANCE_API_KEY

test("every endpoint", { skip }, async () => {
  const c = client();
  const page = await c.perfumes({ q: "sauvage", limit: 5 });
  assert.ok(page.data.length > 0);
  assert.equal(page.limit, 5);
  const slug = page.data[0].id;
  const d = await c.perfume(slug);
  assert.equal(d.id, slug);
  assert.equal((await c.similar(slug)).source.id, slug);
  assert.equal((await c.dupes(slug, { limit: 3 })).source.id, slug);
  assert.ok((await c.match({ accords: "woody", season: "winter" })).data.length > 0);
  assert.equal((await c.changes({ limit: 5 })).data.length, 5);
  assert.ok((await c.brands({ q: "dior" })).data.length > 0);
  assert.equal((await c.notes({ limit: 5 })).data.length, 5);
  const perfumers = (await c.perfumers()).data;
  assert.equal((await c.perfumer(perfumers[0].slug)).slug, perfumers[0].slug);
  assert.ok((await c.accords({ search: "wood" })).data.length > 0);
  assert.ok(["free", "basic", "pro", "enterprise"].includes((await c.usage({ days: 2 })).key.tier));
  assert.ok((await c.search({ q: "sauvage" })).perfumes.length > 0);
  const img = await c.fetchImage(d);
  assert.ok(img.body.byteLength > 0);
  assert.equal(img.transparent, d.imageTransparentAvailable);
  let n = 0;
  for await (const _ of c.allPerfumes({ brand: d.brandSlug, limit: 2 })) n++;
  assert.equal(n, (await c.perfumes({ brand: d.brandSlug })).total);
});

test("problems are typed errors", { skip }, async () => {
  const c = client();
  await assert.rejects(c.perfume("no-such-perfume"), (e: unknown) => e instanceof ApiError && e.status === 404 && e.code === "not_found" && e.requestId !== "");
  await assert.rejects(c.perfumes({ limit: 0 }), (e: unknown) => e instanceof ApiError && e.code === "invalid_parameter" && e.errors[0]?.parameter === "limit");
  const limited = new FragranceClient(base!, { key: process.env.FRAGRANCE_TEST_LIMITED_KEY, retries: 0 });
  await assert.rejects(async () => {
    for (let i = 0; i < 2; i++) await limited.brands(); // one request a minute: the second at the latest is refused
  }, (e: unknown) => e instanceof ApiError && e.status === 429 && e.code === "rate_limited" && (e.retryAfter ?? 0) > 0);
});

test("a full sync, then an incremental one after an import", { skip }, async () => {
  const c = client();
  const copy = new Map<string, string>();
  const s = c.sync();
  for await (const ch of s) {
    if (ch.deleted) copy.delete(ch.id);
    else copy.set(ch.id, ch.perfume.name);
  }
  assert.ok(copy.size > 0);
  execFileSync(process.env.FRAGRANCE_TEST_BIN!, ["import", "--db", process.env.FRAGRANCE_TEST_DB!, process.env.FRAGRANCE_TEST_IMPORT!], { stdio: "pipe" });
  const again = c.sync(s.cursor);
  const changed: string[] = [];
  for await (const ch of again) {
    changed.push(ch.id);
    assert.ok(!ch.deleted && ch.perfume.name.startsWith("Changed "), ch.id);
  }
  assert.deepEqual(changed, process.env.FRAGRANCE_TEST_CHANGED!.split(","));
  assert.notEqual(again.cursor, s.cursor);
});
