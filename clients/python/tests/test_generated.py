"""The committed _generated.py is what the OpenAPI document generates now."""

import importlib.util
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOOLS = HERE.parent / "tools" / "generate.py"


class GeneratedTest(unittest.TestCase):
    def test_generated_module_matches_the_document(self):
        spec = importlib.util.spec_from_file_location("generate", TOOLS)
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        want = gen.generate(gen.DEFAULT_DOC)
        have = gen.DEFAULT_OUT.read_text(encoding="utf-8")
        self.assertTrue(have == want, "src/fragrance_client/_generated.py is not what internal/api/openapi.json "
                        "generates: run `python3 tools/generate.py` (or clients/generate.sh) and commit the result")


if __name__ == "__main__":
    unittest.main()
