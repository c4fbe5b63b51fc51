"""ctest's entry to the Python tests: pytest over this folder, with the build's package first on
the path. Exits 77 (ctest: skipped) where the interpreter has no pytest or NumPy."""
import importlib.util
import os
import sys

missing = [name for name in ("pytest", "numpy") if importlib.util.find_spec(name) is None]
if missing:
    print(f"{sys.executable} has no {' or '.join(missing)} (Debian: python3-pytest python3-numpy): skipped")
    sys.exit(77)

import pytest  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here, here] + sys.argv[1:]))
