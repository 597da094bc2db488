// Copy the whole catalogue into a JSON Lines file, then keep it up to date.
//
// The first run walks the change feed from the beginning (every perfume
// once) and writes one perfume a line; each later run applies only what
// changed since the cursor kept beside the file: upserts replace a
// perfume's line, tombstones remove it. Run it nightly.
//
//   FRAGRANCE_API_KEY=fds_... node examples/sync-jsonl.mjs http://127.0.0.1:8080 perfumes.jsonl
import { existsSync, readFileSync, renameSync, writeFileSync, createWriteStream } from "node:fs";
import { FragranceClient } from "fragrance-client";

const [base, file] = process.argv.slice(2);
const cursorFile = file + ".cursor";
const client = new FragranceClient(base);
const start = Date.now();

if (!existsSync(cursorFile)) {
  // The first copy: stream every perfume to the file as it arrives.
  const out = createWriteStream(file + ".tmp");
  const sync = client.sync();
  let n = 0;
  for await (const change of sync) {
    if (!change.deleted && !out.write(JSON.stringify(change.perfume) + "\n")) await new Promise((r) => out.once("drain", r));
    n++;
  }
  await new Promise((r) => out.end(r));
  renameSync(file + ".tmp", file);
  writeFileSync(cursorFile, sync.cursor);
  console.log(`${n} perfumes copied to ${file} in ${((Date.now() - start) / 1000).toFixed(1)} s; cursor ${sync.cursor}`);
} else {
  // Later runs: apply the changes since the cursor to the copy.
  const copy = new Map(readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => [JSON.parse(l).id, l]));
  const sync = client.sync(readFileSync(cursorFile, "utf8").trim());
  let upserts = 0, deletes = 0;
  for await (const change of sync) {
    if (change.deleted) copy.delete(change.id), deletes++;
    else copy.set(change.id, JSON.stringify(change.perfume)), upserts++;
  }
  writeFileSync(file + ".tmp", [...copy.values()].join("\n") + "\n");
  renameSync(file + ".tmp", file);
  writeFileSync(cursorFile, sync.cursor);
  console.log(`${upserts} upserts, ${deletes} deletions applied; ${copy.size} perfumes in ${file}; cursor ${sync.cursor}`);
}
