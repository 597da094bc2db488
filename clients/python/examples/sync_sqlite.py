"""Copy the whole catalogue into a local SQLite file, then keep it up to date.

The first run walks the change feed from the beginning (every perfume once);
each later run applies only what changed since the cursor stored with the
copy: upserts replace a perfume's row, tombstones delete it. Run it nightly.

    FRAGRANCE_API_KEY=fds_... python3 examples/sync_sqlite.py http://127.0.0.1:8080 perfumes.db
"""

import json
import sqlite3
import sys
import time

from fragrance_client import Client


def main(base_url: str, path: str) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS perfumes (slug TEXT PRIMARY KEY, name TEXT, brand TEXT, detail TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS sync (id INTEGER PRIMARY KEY CHECK (id = 1), cursor TEXT)")
    row = db.execute("SELECT cursor FROM sync").fetchone()
    start, upserts, deletes = time.monotonic(), 0, 0
    sync = Client(base_url).sync(row[0] if row else None)
    for change in sync:
        if change.deleted:
            db.execute("DELETE FROM perfumes WHERE slug = ?", (change.id,))
            deletes += 1
        else:
            p = change.perfume
            db.execute("INSERT OR REPLACE INTO perfumes VALUES (?, ?, ?, ?)",
                       (p["id"], p["name"], p["brand"], json.dumps(p, ensure_ascii=False)))
            upserts += 1
        if (upserts + deletes) % 1000 == 0:  # a page applied: keep its cursor with it
            db.execute("INSERT OR REPLACE INTO sync VALUES (1, ?)", (sync.cursor,))
            db.commit()
    db.execute("INSERT OR REPLACE INTO sync VALUES (1, ?)", (sync.cursor,))
    db.commit()
    total = db.execute("SELECT COUNT(*) FROM perfumes").fetchone()[0]
    print(f"{upserts} upserts, {deletes} deletions in {time.monotonic() - start:.1f} s; "
          f"{total} perfumes in {path}; cursor {sync.cursor}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
