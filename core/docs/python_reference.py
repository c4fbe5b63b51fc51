"""The Python module's reference, from its docstrings with pydoc, into OUT/kernwerk.html; a
public function, class or method without a docstring fails it. The module is not built for
this: every docstring is in kernwerk/__init__.py, and its compiled part (kernwerk._core) is
stood in for. ./kw docs runs it.

    python3 core/docs/python_reference.py OUT
"""
import inspect
import os
import pydoc
import sys
import types


class _CompiledPart(types.ModuleType):
    """kernwerk._core's stand-in: any attribute is a function that does nothing."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def main(out):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "python"))
    sys.modules["kernwerk._core"] = _CompiledPart("kernwerk._core")
    import kernwerk

    missing = []
    for name, item in vars(kernwerk).items():
        if name.startswith("_") or getattr(item, "__module__", None) != "kernwerk":
            continue
        if not inspect.getdoc(item):
            missing.append(name)
        if inspect.isclass(item):
            missing += [f"{name}.{member}" for member, method in vars(item).items()
                        if not member.startswith("_") and callable(method) and not inspect.getdoc(method)]
    if not kernwerk.__doc__:
        missing.append("the module")
    if missing:
        sys.exit("python_reference.py: no docstring: " + ", ".join(missing))
    os.makedirs(out, exist_ok=True)
    page = pydoc.html.page("kernwerk (Python)", pydoc.html.document(kernwerk, "kernwerk"))
    with open(os.path.join(out, "kernwerk.html"), "w", encoding="utf-8") as file:
        file.write(page)
    print(f"python_reference.py: {os.path.join(out, 'kernwerk.html')}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/docs/python")
