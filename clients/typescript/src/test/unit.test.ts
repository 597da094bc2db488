import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, FragranceClient, imageUrl } from "../index.js";

let base = "";
let calls = 0;
const pages: Record<string, unknown> = {
  "": { data: [{ id: "a-one", name: "One" }, { id: "b-two", deleted: true }], nextCursor: "c2", hasMore: true },
  c2: { data: [{ id: "c-three", name: "Three" }], nextCursor: "c3", hasMore: false },
};
const server = http.createServer((req, res) => {
  const u = new URL(req.url ?? "/", "http://x");
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "application/json", ...headers });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };
  if (u.pathname === "/api/brands") {
    calls++;
    if (calls === 1) {
      return send(429, { code: "rate_limited", title: "Rate limit exceeded", detail: "60 requests a minute", status: 429 },
        { "Retry-After": "1", "X-Request-Id": "req-1", "Content-Type": "application/problem+json" });
    }
    return send(200, { data: [{ name: "Dior", slug: "dior", count: 1 }], total: 1, key: req.headers["x-api-key"] });
  }
  if (u.pathname === "/api/perfumes/changes") {
    assert.equal(u.searchParams.get("limit"), "1000");
    return send(200, pages[u.searchParams.get("since") ?? ""]);
  }
  if (u.pathname === "/img/perfume-nobg/1.webp") return send(404, { code: "not_found" }, { "X-Service-Nobg-Status": "not-processed" });
  if (u.pathname === "/img/perfume/1.jpg") {
    res.writeHead(200, { "Content-Type": "image/jpeg" });
    return res.end(Buffer.from([0xff, 0xd8]));
  }
  send(404, { code: "not_found", detail: "no such thing" }, { "X-Request-Id": "req-2" });
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test("a 429 is retried after its Retry-After, with the key", async () => {
  calls = 0;
  const start = Date.now();
  const b = (await new FragranceClient(base, { key: "fds_test" }).brands()) as unknown as { data: { slug: string }[]; key: string };
  assert.equal(b.data[0].slug, "dior");
  assert.equal(b.key, "fds_test");
  assert.equal(calls, 2);
  assert.ok(Date.now() - start >= 1000);
});

test("a 429 is an ApiError with retries off or a wait past the bound", async () => {
  for (const c of [new FragranceClient(base, { key: "k", retries: 0 }), new FragranceClient(base, { key: "k", maxRetryWait: 0.5 })]) {
    calls = 0;
    await assert.rejects(c.brands(), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.deepEqual([e.status, e.code, e.detail, e.requestId, e.retryAfter, calls], [429, "rate_limited", "60 requests a minute", "req-1", 1, 1]);
      return true;
    });
  }
});

test("a problem is thrown typed", async () => {
  await assert.rejects(new FragranceClient(base, { key: "k" }).perfume("no such/slug"), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.deepEqual([e.status, e.code, e.requestId], [404, "not_found", "req-2"]);
    return true;
  });
});

test("sync follows the cursor and yields tombstones", async () => {
  const s = new FragranceClient(base, { key: "k" }).sync();
  const got: string[] = [];
  for await (const ch of s) got.push(ch.deleted ? "-" + ch.id : ch.perfume.name);
  assert.deepEqual(got, ["One", "-b-two", "Three"]);
  assert.equal(s.cursor, "c3");
});

test("an image falls back to the JPEG", async () => {
  const img = await new FragranceClient(base).fetchImage({ image: base + "/img/perfume/1.jpg", imageTransparent: base + "/img/perfume-nobg/1.webp" });
  assert.deepEqual([new Uint8Array(img.body).length, img.contentType, img.transparent], [2, "image/jpeg", false]);
  assert.equal(imageUrl({ image: "j", imageTransparent: "t", imageTransparentAvailable: false }), "j");
  assert.equal(imageUrl({ image: "j", imageTransparent: "t", imageTransparentAvailable: true }), "t");
});
