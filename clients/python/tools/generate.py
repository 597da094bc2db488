"""Writes src/fragrance_client/_generated.py from the service's OpenAPI document.

The generated module holds a TypedDict for every schema of the document and
one method per JSON endpoint under /api (class Endpoints, which Client
extends), so a new endpoint, parameter or field in the document is one run
of this script away (clients/generate.sh runs it with the other clients'
generators). tests/test_generated.py fails when the committed module is not
what the document generates.

    python3 tools/generate.py [DOCUMENT] [OUTPUT]
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_DOC = HERE.parent.parent.parent / "internal" / "api" / "openapi.json"
DEFAULT_OUT = HERE.parent / "src" / "fragrance_client" / "_generated.py"


def pascal(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", name) if p)


def snake(name: str) -> str:
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).replace("-", "_").lower()
    return s + "_" if keyword.iskeyword(s) else s


def doc_line(text: str | None) -> str:
    return " ".join((text or "").split())


class Generator:
    def __init__(self, doc: dict):
        self.doc = doc
        self.classes: list[str] = []  # emitted TypedDicts, dependencies first
        self.done: set[str] = set()

    # -- types -------------------------------------------------------------
    def ref_name(self, ref: str) -> str:
        return ref.rsplit("/", 1)[-1]

    def type_of(self, s: dict, context: str) -> str:
        if "$ref" in s:
            name = self.ref_name(s["$ref"])
            self.schema(name, self.doc["components"]["schemas"][name])
            return name
        if "const" in s:
            return f"Literal[{json.dumps(s['const'])}]"
        if "enum" in s:
            values = [v for v in s["enum"] if v is not None]
            lit = "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
            return lit + " | None" if None in s["enum"] else lit
        for union in ("oneOf", "anyOf"):
            if union in s:
                parts = [self.type_of(sub, f"{context}{i}") for i, sub in enumerate(s[union])]
                return " | ".join(dict.fromkeys(parts))
        t = s.get("type")
        if isinstance(t, list):
            parts = [self.type_of({**s, "type": x}, context) for x in t]
            return " | ".join(dict.fromkeys(parts))
        if t == "null":
            return "None"
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "array":
            return f"list[{self.type_of(s.get('items', {}), context + 'Item')}]"
        if t == "object" or "properties" in s:
            if "properties" in s:
                self.schema(context, s)
                return context
            extra = s.get("additionalProperties")
            if isinstance(extra, dict):
                return f"dict[str, {self.type_of(extra, context + 'Value')}]"
            return "dict[str, Any]"
        return "Any"

    def schema(self, name: str, s: dict) -> None:
        if name in self.done:
            return
        self.done.add(name)
        if "properties" not in s:
            self.classes.append(f"{name} = {self.type_of(s, name + 'Value')}\n")
            return
        required = set(s.get("required", []))
        lines = []
        for prop, ps in s["properties"].items():
            t = self.type_of(ps, name + pascal(prop))
            if prop not in required:
                t = f"NotRequired[{t}]"
            lines.append((prop, t, doc_line(ps.get("description"))))
        out = [f"class {name}(TypedDict):"]
        out.append(f'    """{doc_line(s.get("description")) or name + "."}"""')
        out.append("")
        for prop, t, d in lines:
            if d:
                out.append(f"    #: {d}")
            out.append(f"    {prop}: {t}")
        if not lines:
            out.append("    pass")
        self.classes.append("\n".join(out) + "\n")

    # -- endpoints ---------------------------------------------------------
    def param(self, p: dict) -> dict:
        if "$ref" in p:
            return self.doc["components"]["parameters"][self.ref_name(p["$ref"])]
        return p

    def endpoints(self) -> list[str]:
        out = []
        for path, item in self.doc["paths"].items():
            op = item.get("get")
            if not path.startswith("/api/") or op is None:
                continue
            ok = op["responses"].get("200", {})
            if "$ref" in ok:
                ok = self.doc["components"]["responses"][self.ref_name(ok["$ref"])]
            schema = ok.get("content", {}).get("application/json", {}).get("schema")
            if schema is None or path == "/api/openapi.json":
                continue
            op_id = op["operationId"]
            ret = self.type_of(schema, pascal(op_id) + "Answer")
            params = [self.param(p) for p in item.get("parameters", []) + op.get("parameters", [])]
            path_params = [p for p in params if p["in"] == "path"]
            query = [p for p in params if p["in"] == "query"]
            args = ["self"] + [f"{snake(p['name'])}: str" for p in path_params]
            if query:
                args.append("*")
                args += [f"{snake(p['name'])}: {self.type_of(p.get('schema', {}), 'Param')} | None = None" for p in query]
            fpath = path
            for p in path_params:
                fpath = fpath.replace("{" + p["name"] + "}", "{_seg(" + snake(p["name"]) + ")}")
            qdict = ", ".join(f'"{p["name"]}": {snake(p["name"])}' for p in query)
            summary = doc_line(op.get("summary")) or op_id
            out.append(
                f"    def {snake(op_id)}({', '.join(args)}) -> {ret}:\n"
                f'        """GET {path}: {summary}."""\n'
                f"        return self._get(f\"{fpath}\", {{{qdict}}})  # type: ignore[return-value]\n"
            )
        return out

    def module(self) -> str:
        for name, s in self.doc["components"]["schemas"].items():
            self.schema(name, s)
        methods = self.endpoints()
        head = [
            '"""Generated from the service\'s OpenAPI document by tools/generate.py: do not edit.',
            "",
            f"Document version {self.doc['info']['version']}.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "from typing import Any, Literal, NotRequired, TypedDict",
            "from urllib.parse import quote",
            "",
            "",
            "def _seg(value: str) -> str:",
            '    return quote(value, safe="")',
            "",
            "",
        ]
        body = "\n\n".join(self.classes)
        endpoints = [
            "class Endpoints:",
            '    """One method per JSON endpoint under /api, typed as the document says."""',
            "",
            "    def _get(self, path: str, query: dict[str, Any]) -> Any:",
            "        raise NotImplementedError",
            "",
        ] + methods
        return "\n".join(head) + body + "\n\n" + "\n".join(endpoints)


def generate(doc_path: Path) -> str:
    return Generator(json.loads(doc_path.read_text(encoding="utf-8"))).module()


def main(argv: list[str]) -> None:
    doc = Path(argv[1]) if len(argv) > 1 else DEFAULT_DOC
    out = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUT
    out.write_text(generate(doc), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
