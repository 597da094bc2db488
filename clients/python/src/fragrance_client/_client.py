"""The hand-written part of the client: transport, retries, errors, helpers."""

from __future__ import annotations

import email.utils
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._generated import Endpoints, FieldError, MatchItem, PerfumeDetail, PerfumeListItem

__all__ = ["ApiError", "Change", "Client", "Image", "Sync", "image_url"]

#: How many changes a sync asks for a page: the change feed's most.
SYNC_PAGE = 1000

_USER_AGENT = "fragrance-client-python/1.0"


@dataclass
class ApiError(Exception):
    """A problem the service answered (RFC 9457): its status, stable code
    (invalid_parameter, missing_api_key, rate_limited, not_found, ...;
    every code is explained at /docs/errors), detail and request id."""

    status: int
    code: str
    title: str = ""
    detail: str = ""
    request_id: str = ""
    #: Seconds to wait before trying again (429, 503); None when not said.
    retry_after: float | None = None
    #: The parameters that were wrong (invalid_parameter).
    errors: list[FieldError] = field(default_factory=list)

    def __str__(self) -> str:
        s = f"fragrance API: {self.status} {self.code}"
        if self.detail:
            s += f": {self.detail}"
        if self.request_id:
            s += f" (request {self.request_id})"
        return s


@dataclass
class Change:
    """One entry of the change feed: a perfume added or changed (perfume,
    its full detail), or deleted (deleted; id is its slug)."""

    id: str
    deleted: bool
    perfume: PerfumeDetail | None


@dataclass
class Image:
    """An image's bytes and type; transparent is set for the transparent WebP."""

    body: bytes
    content_type: str
    transparent: bool


def image_url(image: str, transparent: str, available: bool) -> str:
    """The image to show of a perfume: the transparent WebP when it exists
    (imageTransparentAvailable), else the JPEG, which always does."""
    return transparent if available and transparent else image


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class Client(Endpoints):
    """A client of the fragrance data service with one key.

    The key is the argument, else the FRAGRANCE_API_KEY environment
    variable. A request answered 429 or 503 is tried again after its
    Retry-After, at most ``retries`` times (0: never) and never after a
    wait longer than ``max_retry_wait`` seconds; otherwise, and for every
    other problem, an :class:`ApiError` is raised.

    >>> c = Client("http://127.0.0.1:8080")
    >>> c.get_perfume("dior-sauvage")["name"]
    'Sauvage'
    """

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        retries: int = 3,
        max_retry_wait: float = 60.0,
        timeout: float = 60.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key if key is not None else os.environ.get("FRAGRANCE_API_KEY", "")
        self.retries = max(retries, 0)
        self.max_retry_wait = max_retry_wait
        self.timeout = timeout

    # -- transport ---------------------------------------------------------
    def _get(self, path: str, query: dict[str, Any]) -> Any:
        params = {k: v for k, v in query.items() if v is not None}
        url = self.base_url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        status, headers, body = self._request(url, auth=True)
        if status != 200:
            raise self._problem(status, headers, body)
        return json.loads(body)

    def _request(self, url: str, *, auth: bool) -> tuple[int, Any, bytes]:
        headers = {"Accept": "application/json", "User-Agent": _USER_AGENT}
        if auth and self.key:
            headers["X-API-Key"] = self.key
        attempt = 0
        while True:
            req = urllib.request.Request(url, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as res:
                    return res.status, res.headers, res.read()
            except urllib.error.HTTPError as e:
                status, hdrs, body = e.code, e.headers, e.read()
            wait = _retry_after(hdrs.get("Retry-After"))
            if status not in (429, 503) or attempt >= self.retries or wait is None or wait > self.max_retry_wait:
                return status, hdrs, body
            attempt += 1
            time.sleep(wait)

    @staticmethod
    def _problem(status: int, headers: Any, body: bytes) -> ApiError:
        err = ApiError(status=status, code=f"http_{status}", request_id=headers.get("X-Request-Id", "") or "",
                       retry_after=_retry_after(headers.get("Retry-After")))
        try:
            p = json.loads(body)
        except ValueError:
            return err
        if isinstance(p, dict) and p.get("code"):
            err.code, err.title, err.detail = p["code"], p.get("title", ""), p.get("detail", "")
            err.errors = p.get("errors", [])
        return err

    # -- helpers -----------------------------------------------------------
    def iter_perfumes(self, *, limit: int = 100, page: int = 1, **params: Any) -> Iterator[PerfumeListItem]:
        """Every perfume of the list or search the parameters ask for (those
        of list_perfumes), page after page."""
        return self._pages(lambda p: self.list_perfumes(page=p, limit=limit, **params), page)

    def iter_matches(self, *, limit: int = 50, page: int = 1, **params: Any) -> Iterator[MatchItem]:
        """Every perfume matching a profile (the parameters of match_perfumes), best first."""
        return self._pages(lambda p: self.match_perfumes(page=p, limit=limit, **params), page)

    @staticmethod
    def _pages(fetch: Callable[[int], Any], page: int) -> Iterator[Any]:
        while True:
            answer = fetch(page)
            yield from answer["data"]
            if page >= answer["pages"] or not answer["data"]:
                return
            page += 1

    def sync(self, since: str | None = None) -> "Sync":
        """Walk the change feed from the cursor ``since`` (None: the whole
        catalogue, each perfume once): iterate it for the changes, oldest
        first, then store its ``cursor`` for the next time."""
        return Sync(self, since or "")

    def fetch_image(self, image: str, transparent: str | None = None) -> Image:
        """A perfume's transparent image, or its JPEG when the transparent
        one is not made yet (404 with X-Service-Nobg-Status: not-processed,
        the documented answer). Images need no key."""
        if transparent:
            status, headers, body = self._request(transparent, auth=False)
            if status == 200:
                return Image(body, headers.get("Content-Type", ""), True)
            if status != 404 or headers.get("X-Service-Nobg-Status") != "not-processed":
                raise self._problem(status, headers, body)
        status, headers, body = self._request(image, auth=False)
        if status != 200:
            raise self._problem(status, headers, body)
        return Image(body, headers.get("Content-Type", ""), False)


class Sync:
    """An iteration over the change feed (Client.sync). ``cursor`` is the
    cursor after the last page whose changes were all yielded: store it
    with what you applied; passing it again repeats at most the changes of
    one page, and applying a change twice is harmless (the latest wins)."""

    def __init__(self, client: Client, since: str) -> None:
        self.client = client
        self.cursor = since

    def __iter__(self) -> Iterator[Change]:
        while True:
            page = self.client.perfume_changes(since=self.cursor or None, limit=SYNC_PAGE)
            for item in page["data"]:
                if item.get("deleted") is True:
                    yield Change(item["id"], True, None)
                else:
                    yield Change(item["id"], False, item)  # type: ignore[arg-type]
            self.cursor = page["nextCursor"]
            if not page["hasMore"]:
                return
