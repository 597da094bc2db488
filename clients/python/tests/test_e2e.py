"""The client against the real binary (test/clients starts it and sets the
environment; see client/e2e_test.go for the variables)."""

import os
import subprocess
import unittest

from fragrance_client import ApiError, Client

BASE = os.environ.get("FRAGRANCE_TEST_URL")


@unittest.skipUnless(BASE, "FRAGRANCE_TEST_URL not set: test/clients runs these against the built binary")
class EndToEndTest(unittest.TestCase):
    def setUp(self):
        self.c = Client(BASE)  # the key from FRAGRANCE_API_KEY

    def test_every_endpoint(self):
        c = self.c
        page = c.list_perfumes(q="sauvage", limit=5)
        self.assertTrue(page["data"])
        self.assertEqual(page["limit"], 5)
        slug = page["data"][0]["id"]
        d = c.get_perfume(slug)
        self.assertEqual(d["id"], slug)
        self.assertEqual(c.similar_perfumes(slug)["source"]["id"], slug)
        self.assertEqual(c.dupe_perfumes(slug, limit=3)["source"]["id"], slug)
        self.assertTrue(c.match_perfumes(accords="woody", season="winter")["data"])
        self.assertEqual(len(c.perfume_changes(limit=5)["data"]), 5)
        self.assertTrue(c.list_brands(q="dior")["data"])
        self.assertEqual(len(c.list_notes(limit=5)["data"]), 5)
        perfumers = c.list_perfumers()["data"]
        self.assertEqual(c.get_perfumer(perfumers[0]["slug"])["slug"], perfumers[0]["slug"])
        self.assertTrue(c.list_accords(search="wood")["data"])
        self.assertIn(c.get_usage(days=2)["key"]["tier"], ("free", "basic", "pro", "enterprise"))
        self.assertTrue(c.site_search(q="sauvage")["perfumes"])
        img = c.fetch_image(d["image"], d["imageTransparent"])
        self.assertTrue(img.body)
        self.assertEqual(img.transparent, d["imageTransparentAvailable"])
        brand = d["brandSlug"]
        every = list(c.iter_perfumes(brand=brand, limit=2))
        self.assertEqual(len(every), c.list_perfumes(brand=brand)["total"])

    def test_problems_are_typed_errors(self):
        with self.assertRaises(ApiError) as cm:
            self.c.get_perfume("no-such-perfume")
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "not_found"))
        self.assertTrue(cm.exception.request_id)
        with self.assertRaises(ApiError) as cm:
            self.c.list_perfumes(limit=0)
        self.assertEqual(cm.exception.code, "invalid_parameter")
        self.assertEqual(cm.exception.errors[0]["parameter"], "limit")
        limited = Client(BASE, os.environ["FRAGRANCE_TEST_LIMITED_KEY"], retries=0)
        with self.assertRaises(ApiError) as cm:
            for _ in range(2):  # one request a minute: the second at the latest is refused
                limited.list_brands()
        self.assertEqual((cm.exception.status, cm.exception.code), (429, "rate_limited"))
        self.assertGreater(cm.exception.retry_after, 0)

    def test_sync_full_then_incremental(self):
        copy = {}
        s = self.c.sync()
        for ch in s:
            if ch.deleted:
                copy.pop(ch.id, None)
            else:
                copy[ch.id] = ch.perfume["name"]
        self.assertTrue(copy)
        subprocess.run([os.environ["FRAGRANCE_TEST_BIN"], "import", "--db", os.environ["FRAGRANCE_TEST_DB"],
                        os.environ["FRAGRANCE_TEST_IMPORT"]], check=True, capture_output=True)
        again = self.c.sync(s.cursor)
        changed = [ch.id for ch in again]
        self.assertEqual(changed, os.environ["FRAGRANCE_TEST_CHANGED"].split(","))
        self.assertNotEqual(again.cursor, s.cursor)
        for ch in self.c.sync(s.cursor):
            self.assertTrue(ch.perfume["name"].startswith("Changed "), ch.perfume["name"])


if __name__ == "__main__":
    unittest.main()
