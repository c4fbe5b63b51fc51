# Kernwerk's spack recipe. Kernwerk has no public download yet: spack builds a checkout of it
# (`spack develop`, docs/building.md "Installing with spack", checked with spack 1.1 and develop).
# Loads in spack 0.23 (build systems from spack.package) and 1.x (from spack_repo.builtin).
import spack
from spack.package import *

try:  # spack 1.x keeps the build-system classes in its builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # spack 0.23 exports them from spack.package
    pass


class Kernwerk(CMakePackage, CudaPackage, ROCmPackage):
    """Portable accelerated numerical kernels on Kokkos for science codes in C++, C and Fortran:
    exact nearest neighbour on the sphere, 2-D diffusion, integration, reductions, dense linear
    algebra and conjugate gradient, with tuned CUDA, HIP and host paths."""

    maintainers("kernwerk")
    license("UNKNOWN")

    # The checkout `spack develop --path` names; there is nothing to download.
    version("main")

    variant("fortran", default=True, description="The Fortran module (Kernwerk::kernwerk_fortran)")
    variant("eigen", default=True, description="gemm's vendor path on host spaces through Eigen")
    variant("tests", default=False, description="Build the doctest suites")
    variant("mpi", default=False, description="kernwerk::mpi (Kernwerk::kernwerk_mpi): nearest neighbours over MPI ranks")
    variant("python", default=False, description="The Python module kernwerk (pybind11; NumPy, CuPy, PyTorch arrays)")

    conflicts("+cuda", when="+rocm", msg="one GPU backend at a time")
    # nvcc refuses a host compiler newer than it knows (Kokkos' nvcc_wrapper hands it ours).
    conflicts("%gcc@16:", when="+cuda ^cuda@:13.0",
              msg="CUDA up to 13.0 takes GCC up to 15: build with %gcc@:15 or a newer ^cuda")

    # Compilers as dependencies: required from spack 1.0; spack 0.2x takes them from %compiler
    # (and its original concretizer cannot solve them).
    if spack.spack_version_info >= (1, 0):
        depends_on("c", type="build")
        depends_on("cxx", type="build")
        depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.21:", type="build")
    depends_on("libpng")  # kernwerk diffuse writes PNG images
    depends_on("eigen@3.3:", when="+eigen")
    depends_on("doctest", type=("build", "test"), when="+tests")
    depends_on("mpi", when="+mpi")
    extends("python", when="+python")
    depends_on("python@3.8:", type=("build", "link", "run"), when="+python")
    depends_on("py-pybind11@2.6:", type="build", when="+python")
    depends_on("py-numpy", type="run", when="+python")  # host results are NumPy arrays

    # Kernwerk runs on the host execution spaces its Kokkos has (Serial, OpenMP or both), so
    # an installed Kokkos is taken as it is; choose them on Kokkos (`^kokkos+openmp`).
    depends_on("kokkos@3.4:5")
    # The Kokkos releases each backend was checked with (the suites run; for ROCm, compiled);
    # another release in 3.4 to 5.x may work, but nothing has shown it, so it is refused with
    # a message rather than promised. The checks: host 3.4.01 and 5.2.2 in CI, 4.6.01 by hand;
    # CUDA 3.4.01 on an H100 and an H200, 4.6.01 on an H100; ROCm 3.4.01 and 4.6.01 compiled
    # for gfx908.
    conflicts("^kokkos@3.5:4.5,4.7:5.1,5.3:", when="~cuda~rocm",
              msg="Kernwerk's host build is checked with Kokkos 3.4, 4.6 and 5.2: "
                  "ask for one of them (^kokkos@4.6)")
    conflicts("^kokkos@3.5:4.5,4.7:", when="+cuda",
              msg="Kernwerk's CUDA build is checked with Kokkos 3.4 and 4.6: "
                  "ask for one of them (^kokkos@4.6)")
    conflicts("^kokkos@3.5:4.5,4.7:", when="+rocm",
              msg="Kernwerk's ROCm build is checked (compiled) with Kokkos 3.4 and 4.6: "
                  "ask for one of them (^kokkos@4.6)")
    # The GPU backend and architecture are Kokkos' to compile; they must match ours. Kokkos'
    # recipe needs its nvcc wrapper for CUDA with GCC, and CUDA lambdas up to Kokkos 4 (always
    # on from Kokkos 5, where the variant is gone).
    depends_on("kokkos+cuda+wrapper", when="+cuda")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
    depends_on("kokkos+rocm", when="+rocm")
    for target in ROCmPackage.amdgpu_targets:
        depends_on(f"kokkos amdgpu_target={target}", when=f"+rocm amdgpu_target={target}")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("KERNWERK_ENABLE_TESTS", "tests"),
            self.define_from_variant("KERNWERK_ENABLE_CUDA_TUNED", "cuda"),
            self.define_from_variant("KERNWERK_ENABLE_HIP_TUNED", "rocm"),
            self.define_from_variant("KERNWERK_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("KERNWERK_ENABLE_EIGEN", "eigen"),
            self.define_from_variant("KERNWERK_ENABLE_MPI", "mpi"),
            self.define("KERNWERK_ENABLE_APPS", True),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("KERNWERK_ENABLE_PYTHON", spec.satisfies("+python")),
        ]
        if spec.satisfies("+python"):  # into the prefix's site directory, which spack puts on PYTHONPATH
            args.append(self.define("Python_EXECUTABLE", spec["python"].command.path))
            args.append(self.define("KERNWERK_PYTHON_INSTALL_DIR", spec["python"].package.platlib))
        if spec.satisfies("+cuda"):  # Kokkos 3.x and 4.x compile CUDA through nvcc_wrapper
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        if spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["hip"].hipcc))
        return args

    def test_examples(self):
        """build the installed examples (C++, C and Fortran) against the installed package, and
        run them"""
        source = join_path(self.prefix.share, "kernwerk", "examples")
        with working_dir(join_path(self.test_suite.stage, "examples-build"), create=True):
            cmake = which(self.spec["cmake"].prefix.bin.cmake)
            cmake(source, f"-DCMAKE_PREFIX_PATH={self.prefix};{self.spec['kokkos'].prefix}",
                  f"-DCMAKE_CXX_COMPILER={self.compiler.cxx}", "-DCMAKE_BUILD_TYPE=Release")
            cmake("--build", ".")
            names = ["nearest", "diffuse"]
            languages = ["cpp", "c"] + (["fortran"] if self.spec.satisfies("+fortran") else [])
            for name in names:
                for language in languages:
                    with test_part(self, f"test_examples_{name}_{language}",
                                   purpose=f"run the {name} example in {language}"):
                        program = which(join_path(".", f"example_{name}_{language}"))
                        program()
