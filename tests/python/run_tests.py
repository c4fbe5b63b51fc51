"""ctest's entry to the Python tests: pytest over this folder, with the build's package first on
the path. Fails, saying why, where the interpreter the module was built for has no pytest or
NumPy: a suite that did not run is never reported as passed."""
import importlib.util
import os
import sys

missing = [name for name in ("pytest", "numpy") if importlib.util.find_spec(name) is None]
if missing:
    print(f"the Python tests cannot run: {sys.executable}, the interpreter the module was built for, "
          f"has no {' or '.join(missing)} (Debian: apt-get install python3-pytest python3-numpy; or "
          "configure with -DPython_EXECUTABLE= an interpreter that has them, or -DKERNWERK_ENABLE_PYTHON=OFF)")
    sys.exit(1)

import pytest  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here, here] + sys.argv[1:]))
