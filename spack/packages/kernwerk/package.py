# Kernwerk's spack recipe: `spack repo add <checkout>/spack`, then `spack install kernwerk` with
# the backend of the machine (`+cuda cuda_arch=90`, `+rocm amdgpu_target=gfx908`, `+openmp`).
# Loads in spack 0.23 (build systems from spack.package) and 1.x (from spack_repo.builtin).
from spack.package import *

try:  # spack 1.x keeps the build-system classes in its builtin package repository
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # spack 0.23 exports them from spack.package
    pass


class Kernwerk(CMakePackage, CudaPackage, ROCmPackage):
    """Portable accelerated numerical kernels on Kokkos: exact nearest neighbour on the sphere
    (haversine) and in 2-D/3-D, with tuned CUDA, HIP and host paths."""

    maintainers("kernwerk")
    license("UNKNOWN")

    version("0.1.0")

    variant("openmp", default=True, description="Host parallelism through Kokkos' OpenMP backend")
    variant("serial", default=True, description="Kokkos' Serial backend")
    variant("tests", default=False, description="Build the doctest suites (run by spack test)")
    variant("mpi", default=False, description="MPI-distributed drivers")
    variant("fortran", default=False, description="The Fortran module")

    conflicts("+mpi", msg="Kernwerk's MPI drivers are not in this release yet")
    conflicts("+fortran", msg="Kernwerk's Fortran module is not in this release yet")
    conflicts("+cuda", when="+rocm", msg="one GPU backend at a time")

    depends_on("cmake@3.21:", type="build")
    depends_on("doctest", type=("build", "test"), when="+tests")
    depends_on("kokkos@3.4:5")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos+serial", when="+serial")

    # The GPU backend and architecture are Kokkos' to compile; they must match ours.
    depends_on("kokkos+cuda+wrapper", when="+cuda")
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")  # always on from Kokkos 5
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
            self.define("KERNWERK_ENABLE_APPS", True),
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
        ]
        if spec.satisfies("+cuda"):  # Kokkos 3.x and 4.x compile CUDA through nvcc_wrapper
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        if spec.satisfies("+rocm"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["hip"].hipcc))
        return args
