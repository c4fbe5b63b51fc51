"""pip's build of the Python module kernwerk (pyproject.toml).

CMake builds the module (the target kernwerk_python) against Kokkos for the backend that
KERNWERK_BACKEND names (host, the default; cuda; hip) and KERNWERK_ARCH (./kw's --arch), for
the interpreter pip runs; ./kw installs or bootstraps Kokkos as it does for every build. The
build goes to build/pip-<backend>, or to KERNWERK_BUILD_DIR (an existing build of this tree,
where only the module is built). The wheel holds the package and the compiled module.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as cmake:
        return re.search(r"project\(Kernwerk VERSION ([0-9.]+)", cmake.read()).group(1)


class cmake_build(build_ext):
    def build_extension(self, ext):
        backend = os.environ.get("KERNWERK_BACKEND", "host")
        if backend not in ("host", "cuda", "hip"):
            raise SystemExit(f"KERNWERK_BACKEND: host, cuda or hip, not {backend!r}")
        arch = os.environ.get("KERNWERK_ARCH")
        found = subprocess.run([os.path.join(ROOT, "kw"), "kokkos", "--backend", backend] +
                               (["--arch", arch] if arch else []),
                               check=True, stdout=subprocess.PIPE, text=True).stdout
        env = dict(os.environ, Kokkos_ROOT=found.strip().splitlines()[-1])
        build = os.path.abspath(os.environ.get("KERNWERK_BUILD_DIR") or
                                os.path.join(ROOT, "build", f"pip-{backend}"))
        # A build whose module is for this interpreter's ABI is only brought up to date (a
        # venv's python is its base interpreter's: configuring for it would tie the build to
        # the venv); any other is configured for this interpreter first.
        module = os.path.join(build, "python", "kernwerk", "_core" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not os.path.exists(module):
            options = [f"-DPython_EXECUTABLE={sys.executable}", "-DKERNWERK_ENABLE_PYTHON=ON"]
            if not os.path.exists(os.path.join(build, "CMakeCache.txt")):  # the module alone
                options += ["-DKERNWERK_ENABLE_TESTS=OFF", "-DKERNWERK_ENABLE_PERF=OFF",
                            "-DKERNWERK_ENABLE_APPS=OFF", "-DKERNWERK_ENABLE_FORTRAN=OFF",
                            "-DKERNWERK_ENABLE_MPI=OFF"]
            subprocess.run(["cmake", "--preset", backend, "-B", build] + options, cwd=ROOT,
                           env=env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", build, "--target", "kernwerk_python",
                        "-j", str(os.cpu_count() or 1)], env=env, check=True)
        if not os.path.exists(module):
            raise SystemExit(f"the build made no {module}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(module, target)


setup(version=version(), packages=["kernwerk"], package_dir={"kernwerk": "core/python/kernwerk"},
      ext_modules=[Extension("kernwerk._core", sources=[])], cmdclass={"build_ext": cmake_build})
