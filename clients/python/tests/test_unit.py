"""The client against a small local server: retries, problems, sync, images."""

import json
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from fragrance_client import ApiError, Client, image_url


class Fake(BaseHTTPRequestHandler):
    calls = 0
    pages = {
        "": {"data": [{"id": "a-one", "name": "One"}, {"id": "b-two", "deleted": True}], "nextCursor": "c2", "hasMore": True},
        "c2": {"data": [{"id": "c-three", "name": "Three"}], "nextCursor": "c3", "hasMore": False},
    }

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        u = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        if u.path == "/api/brands":
            type(self).calls += 1
            if type(self).calls == 1:
                return self.send(429, {"code": "rate_limited", "title": "Rate limit exceeded", "detail": "60 requests a minute"},
                                 [("Retry-After", "1"), ("X-Request-Id", "req-1")])
            return self.send(200, {"data": [{"name": "Dior", "slug": "dior", "count": 1}], "total": 1,
                                   "key": self.headers.get("X-API-Key")})
        if u.path == "/api/perfumes/changes":
            assert q["limit"] == "1000", q
            return self.send(200, self.pages[q.get("since", "")])
        if u.path == "/img/perfume-nobg/1.webp":
            return self.send(404, {"code": "not_found"}, [("X-Service-Nobg-Status", "not-processed")])
        if u.path == "/img/perfume/1.jpg":
            return self.send(200, b"\xff\xd8", [("Content-Type", "image/jpeg")])
        self.send(404, {"code": "not_found", "detail": "no such thing"}, [("X-Request-Id", "req-2")])


class UnitTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), Fake)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()

    def test_a_429_is_retried_after_retry_after(self):
        Fake.calls = 0
        start = time.monotonic()
        brands = Client(self.base, "fds_test").list_brands()
        self.assertEqual(brands["data"][0]["slug"], "dior")
        self.assertEqual(brands["key"], "fds_test")
        self.assertEqual(Fake.calls, 2)
        self.assertGreaterEqual(time.monotonic() - start, 1.0)

    def test_a_429_is_an_error_with_retries_off_or_a_wait_too_long(self):
        for client in (Client(self.base, "k", retries=0), Client(self.base, "k", max_retry_wait=0.5)):
            Fake.calls = 0
            with self.assertRaises(ApiError) as cm:
                client.list_brands()
            e = cm.exception
            self.assertEqual((e.status, e.code, e.detail, e.request_id, e.retry_after, Fake.calls),
                             (429, "rate_limited", "60 requests a minute", "req-1", 1.0, 1))

    def test_a_problem_is_raised_typed(self):
        with self.assertRaises(ApiError) as cm:
            Client(self.base, "k").get_perfume("no such/slug")
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.request_id), (404, "not_found", "req-2"))

    def test_sync_follows_the_cursor_and_yields_tombstones(self):
        s = Client(self.base, "k").sync()
        got = [("-" + c.id) if c.deleted else c.perfume["name"] for c in s]
        self.assertEqual(got, ["One", "-b-two", "Three"])
        self.assertEqual(s.cursor, "c3")

    def test_an_image_falls_back_to_the_jpeg(self):
        img = Client(self.base).fetch_image(self.base + "/img/perfume/1.jpg", self.base + "/img/perfume-nobg/1.webp")
        self.assertEqual((img.body, img.content_type, img.transparent), (b"\xff\xd8", "image/jpeg", False))
        self.assertEqual(image_url("j", "t", False), "j")
        self.assertEqual(image_url("j", "t", True), "t")


if __name__ == "__main__":
    unittest.main()
