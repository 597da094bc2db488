"""A PEP 517 build backend of the standard library alone, for this package.

pip builds a wheel of fragrance-client with it offline, on any Python 3.11+
(setuptools is not always there, and its wheel command needs a package of
its own): `pip install .`, `pip wheel .`. It reads the [project] table of
pyproject.toml and packs src/fragrance_client with its metadata, the
licence and the RECORD that installers check.
"""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "fragrance_client"


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _dist_name(p: dict) -> str:
    return p["name"].replace("-", "_") + "-" + p["version"]


def _metadata(p: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p['description']}", f"Requires-Python: {p['requires-python']}",
             f"License: {p['license']['text']}"]
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    lines += ["Description-Content-Type: text/markdown", "", (ROOT / p["readme"]).read_text(encoding="utf-8")]
    return "\n".join(lines)


def _files(p: dict) -> list[tuple[str, bytes]]:
    src = ROOT / "src" / PACKAGE
    files = [(f"{PACKAGE}/{f.name}", f.read_bytes()) for f in sorted(src.iterdir())
             if f.is_file() and (f.suffix == ".py" or f.name == "py.typed")]
    info = _dist_name(p) + ".dist-info"
    files += [(f"{info}/METADATA", _metadata(p).encode()),
              (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: fragrance build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
              (f"{info}/licenses/LICENSE", (ROOT / "LICENSE").read_bytes())]
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    name = _dist_name(p) + "-py3-none-any.whl"
    files = _files(p)
    record = _dist_name(p) + ".dist-info/RECORD"
    lines = [_record_line(n, d) for n, d in files] + [f"{record},,"]
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(n, d)
        z.writestr(record, "\n".join(lines) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = _dist_name(p)
    name = base + ".tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "LICENSE", "build_backend/__init__.py", "src", "tests", "tools", "examples"]:
            path = ROOT / rel
            if path.exists():
                tar.add(path, arcname=f"{base}/{rel}", filter=lambda t: None if "__pycache__" in t.name else t)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(p).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
