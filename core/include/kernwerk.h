/** \file
 * Kernwerk's C interface: every algorithm over raw pointers with explicit lengths and strides.
 *
 * Memory: KW_MEMORY_HOST pointers are computed on by the host execution space (OpenMP or
 * Serial), KW_MEMORY_DEVICE pointers by the default execution space (the GPU in a GPU build;
 * the host in a host-only build). There are no hidden transfers: a call reads and writes the
 * memory it is given, where it is. A GPU build checks that each pointer lives where `memory`
 * says.
 *
 * Errors: every entry point returns a kw_status, catches everything, and leaves its outputs
 * untouched when it fails; kw_last_error() then gives the message, naming the argument
 * (thread-local, until the thread's next failing call). Matrices are described by a layout
 * (KW_ROW_MAJOR or KW_COLUMN_MAJOR) and a leading dimension in elements.
 *
 * Threads: any thread may call; calls from several threads run one at a time (they compute on
 * Kokkos' default execution space instances, whose state is one for the process). Under Kokkos
 * 3's OpenMP back end, which computes only on the thread that initialised Kokkos, other threads'
 * host calls run on Kokkos::Serial, and a sphere index or FFT plan made on that thread is used
 * there (elsewhere KW_UNSUPPORTED says so). For concurrent GPU streams, use the C++ interface
 * with an execution space instance per thread.
 */
#ifndef KERNWERK_H
#define KERNWERK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a call returns. */
typedef enum kw_status {
  KW_SUCCESS = 0,          /**< done */
  KW_INVALID_ARGUMENT = 1, /**< an argument the call cannot accept (kw_last_error names it) */
  KW_UNSUPPORTED = 2,      /**< a request this build cannot serve */
  KW_NOT_INITIALIZED = 3,  /**< kw_initialize has not been called (or kw_finalize has) */
  KW_NOT_CONVERGED = 4,    /**< an iteration ran out of steps */
  KW_OUT_OF_MEMORY = 5,    /**< an allocation failed (kw_nearest: also in its smallest chunks) */
  KW_INTERNAL_ERROR = 6    /**< anything else (a bug: kw_last_error says what) */
} kw_status;

/** The two last enumerators of every enum a call takes: every int is then one of the enum's
 * values, so that a wrong one from a C or Fortran caller (7 for a kw_type) is an invalid
 * argument the call reports, not undefined behaviour in the library's C++. Never pass them. */
#define KW_ENUM_RANGE(name) name##_LOWEST_ = -2147483647 - 1, name##_HIGHEST_ = 2147483647

/** The element type of the arrays a call takes. */
typedef enum kw_type {
  KW_FLOAT32 = 0, /**< float */
  KW_FLOAT64 = 1, /**< double */
  KW_ENUM_RANGE(KW_TYPE)
} kw_type;
/** Where the arrays a call takes live, and so which execution space computes on them. */
typedef enum kw_memory {
  KW_MEMORY_HOST = 0,  /**< host memory, the host execution space */
  KW_MEMORY_DEVICE = 1, /**< the default execution space's memory (the GPU's in a GPU build) */
  KW_ENUM_RANGE(KW_MEMORY)
} kw_memory;
/** The order of a matrix's elements. */
typedef enum kw_layout {
  KW_ROW_MAJOR = 0,   /**< rows one after the other (C's order) */
  KW_COLUMN_MAJOR = 1, /**< columns one after the other (Fortran's order) */
  KW_ENUM_RANGE(KW_LAYOUT)
} kw_layout;

/** A fixed description of each status. */
const char* kw_status_message(kw_status status);
/** The message of the calling thread's last failed call ("" when none failed). */
const char* kw_last_error(void);

/** For language bindings: records "kernwerk::<function>: <argument>: <problem>" as the thread's
 * last error and returns KW_INVALID_ARGUMENT (checks a binding makes that C cannot). */
kw_status kw_report_invalid_argument(const char* function, const char* argument,
                                     const char* problem);

/** Initialises Kokkos unless the application already did (then it is left alone). */
kw_status kw_initialize(void);
/** Finalises Kokkos if, and only if, kw_initialize initialised it. */
kw_status kw_finalize(void);
/** 1 while Kokkos is initialised (by kw_initialize or by the application), else 0. */
int kw_is_initialized(void);

/* ---- nearest neighbours ------------------------------------------------------------------ */
/** Options of kw_nearest; kw_nearest_options_default fills the defaults. */
typedef struct kw_nearest_options {
  int metric;            /**< 0 haversine (lat, lon), 1 euclidean */
  int degrees;           /**< haversine coordinates in degrees (else radians) */
  double radius;         /**< haversine distances are central angles times this */
  int method;            /**< 0 auto, 1 brute, 2 indexed */
  int implementation;    /**< 0 auto, 1 generic, 2 tuned */
  int64_t memory_budget; /**< bytes; 0: the library's default */
} kw_nearest_options;

/** Haversine in radians on the unit sphere, method and implementation auto, no budget. */
void kw_nearest_options_default(kw_nearest_options* options);

/** For each of the n observations, the k nearest of the m references (nearest first, ties to
 * the smallest index). Points are rows of `dimension` coordinates (2 for haversine, 2 or 3
 * for euclidean), contiguous. indices and distances are n x k, row-major; distances of
 * `type`. options may be NULL (defaults). Where an allocation fails, the call runs again in
 * smaller chunks; KW_OUT_OF_MEMORY where even the smallest fail (kw_last_error says whether
 * the outputs are untouched or hold -1 and NaN throughout). */
kw_status kw_nearest(kw_type type, kw_memory memory, int64_t dimension, const void* observations,
                     int64_t n, const void* references, int64_t m, int64_t k, int64_t* indices,
                     void* distances, const kw_nearest_options* options);

/** Deprecated: kw_index (below) over (lat, lon) points, under its first name. A sphere index:
 * built once over m references (rows of lat, lon of `type` in `memory`), queried many times
 * with observations of the same type and memory; answers are those of kw_nearest. options may
 * be NULL; of it the index takes degrees and radius (metric must be haversine). The index
 * keeps its own copy of the references. Destroy it before kw_finalize. */
typedef struct kw_sphere_index kw_sphere_index;
/** Builds a kw_sphere_index into *index (untouched on failure). */
kw_status kw_sphere_index_create(kw_type type, kw_memory memory, const void* references,
                                 int64_t m, const kw_nearest_options* options,
                                 kw_sphere_index** index);
/** The k nearest references of each of n observations (rows of lat, lon of the index's type in
 * its memory); indices and distances are n x k, row-major. */
kw_status kw_sphere_index_nearest(const kw_sphere_index* index, const void* observations,
                                  int64_t n, int64_t k, int64_t* indices, void* distances);
/** The references indexed; 0 for NULL. */
int64_t kw_sphere_index_size(const kw_sphere_index* index);
/** Frees the index; NULL is fine. */
kw_status kw_sphere_index_destroy(kw_sphere_index* index);

/* ---- radius search and DBSCAN ------------------------------------------------------------ */
/** Options of kw_count_within, kw_within and kw_index_create; kw_within_options_default fills
 * the defaults. order and distances shape kw_within's rows (and kw_index_within's, from the
 * options the index was created with). */
typedef struct kw_within_options {
  int metric;    /**< 0 haversine (lat, lon), 1 euclidean */
  int degrees;   /**< haversine coordinates in degrees (else radians) */
  double radius; /**< haversine distances are central angles times this */
  int order;     /**< 0: each row nearest first, equal distances by index; 1: the same
                      neighbours in any order, which costs less */
  int distances; /**< 1: kept for kw_within_result_copy; 0: left out, which costs less (the
                      copy then takes NULL distances) */
} kw_within_options;

/** Haversine in radians on the unit sphere; rows nearest first, with their distances. */
void kw_within_options_default(kw_within_options* options);

/** counts[i] = the number of the m points within `radius` of query i (n queries). Points are
 * rows of `dimension` coordinates as kw_nearest's; a point at exactly `radius` (its float64
 * distance as kw_within reports it) counts. options may be NULL (defaults). */
kw_status kw_count_within(kw_type type, kw_memory memory, int64_t dimension, const void* queries,
                          int64_t n, const void* points, int64_t m, double radius,
                          int64_t* counts, const kw_within_options* options);

/** The answer of kw_within, held by the library until kw_within_result_destroy. */
typedef struct kw_within_result kw_within_result;

/** Every point within `radius` of each of the n queries, into a new *result (untouched on
 * failure): the search runs once; kw_within_result_total then says how long the caller's
 * arrays must be, and kw_within_result_copy fills them. options may be NULL (defaults). */
kw_status kw_within(kw_type type, kw_memory memory, int64_t dimension, const void* queries,
                    int64_t n, const void* points, int64_t m, double radius,
                    const kw_within_options* options, kw_within_result** result);
/** The neighbours found, over all queries (offsets[n]); 0 for NULL. */
int64_t kw_within_result_total(const kw_within_result* result);
/** Copies the answer in compressed rows: the neighbours of query i are indices[p] at
 * distances[p] for p from offsets[i] to offsets[i + 1], sorted by distance, equal distances by
 * index (unsorted where the options asked for any order). offsets holds n + 1 entries, indices
 * and distances (of the call's type; NULL to leave them out, as it must be where the options
 * left them out) kw_within_result_total; all in the call's memory. */
kw_status kw_within_result_copy(const kw_within_result* result, int64_t* offsets,
                                int64_t* indices, void* distances);
/** Frees the answer; NULL is fine. */
kw_status kw_within_result_destroy(kw_within_result* result);

/** Options of kw_dbscan; kw_dbscan_options_default fills the defaults. */
typedef struct kw_dbscan_options {
  int metric;    /**< 0 haversine (lat, lon), 1 euclidean */
  int degrees;   /**< haversine coordinates in degrees (else radians) */
  double radius; /**< haversine distances are central angles times this */
  int border;    /**< 0: a border point joins the cluster of its nearest core point (ties to the
                      smallest index); 1: the smallest-numbered cluster among its core
                      neighbours, scikit-learn's labels */
} kw_dbscan_options;

/** Haversine in radians on the unit sphere, border points to the nearest core point. */
void kw_dbscan_options_default(kw_dbscan_options* options);

/** DBSCAN of the n points: labels[i] is point i's cluster (numbered from 0 in the order of
 * their smallest core point), or -1 for noise; *clusters (may be NULL) their number. A core
 * point has at least min_samples points within eps, itself included. labels (n entries) in
 * `memory`. options may be NULL (defaults). */
kw_status kw_dbscan(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                    int64_t n, double eps, int64_t min_samples, int64_t* labels,
                    int64_t* clusters, const kw_dbscan_options* options);

/* ---- spatial index ----------------------------------------------------------------------- */
/** A spatial index (kernwerk::spatial_index): built once over m points (rows of `dimension`
 * coordinates of `type` in `memory`, contiguous, as kw_nearest's), then queried many times with
 * queries of the same type, dimension and memory; answers are those of kw_nearest, kw_within
 * and kw_count_within. options (kw_within_options: the metric, degrees, the sphere's radius)
 * may be NULL (haversine in radians). The index keeps its own copy of the points (m may be 0:
 * an empty index finds nothing). Destroy it before kw_finalize. */
typedef struct kw_index kw_index;
/** Builds a kw_index into *index (untouched on failure). */
kw_status kw_index_create(kw_type type, kw_memory memory, int64_t dimension, const void* points,
                          int64_t m, const kw_within_options* options, kw_index** index);
/** The k nearest indexed points of each of n queries; indices and distances are n x k,
 * row-major, in the index's memory; distances of its type. */
kw_status kw_index_nearest(const kw_index* index, const void* queries, int64_t n, int64_t k,
                           int64_t* indices, void* distances);
/** counts[i] = the number of indexed points within `radius` of query i, as kw_count_within. */
kw_status kw_index_count_within(const kw_index* index, const void* queries, int64_t n,
                                double radius, int64_t* counts);
/** Every indexed point within `radius` of each of n queries into a new *result (untouched on
 * failure), as kw_within, its rows in the order and with the distances of the options the
 * index was created with: kw_within_result_total and kw_within_result_copy read it. */
kw_status kw_index_within(const kw_index* index, const void* queries, int64_t n, double radius,
                          kw_within_result** result);
/** The points indexed; 0 for NULL. */
int64_t kw_index_size(const kw_index* index);
/** Coordinates per point; 0 for NULL. */
int64_t kw_index_dimension(const kw_index* index);
/** Frees the index; NULL is fine. */
kw_status kw_index_destroy(kw_index* index);

/* ---- diffusion ----------------------------------------------------------------------------- */
/** `steps` steps of field -= coeff * (4 f - neighbours inside the grid) on a row-major grid
 * (row_stride >= columns). laplacian may be NULL; else it receives the Laplacian of the last
 * step (row-major, laplacian_row_stride). */
kw_status kw_diffuse(kw_type type, kw_memory memory, void* field, int64_t rows, int64_t columns,
                     int64_t row_stride, int64_t steps, double coeff, void* laplacian,
                     int64_t laplacian_row_stride);

/* ---- integration (host) ---------------------------------------------------------------- */
/** An integrand of kw_integrate2d: f(x, y), with the caller's context. */
typedef double (*kw_integrand)(double x, double y, void* context);
/** The midpoint rule over n x m points of [x0, x1] x [y0, y1], compensated float64 sums. The
 * function runs on the host execution space (a C function pointer cannot run on a GPU). */
kw_status kw_integrate2d(kw_integrand f, void* context, double x0, double x1, double y0,
                         double y1, int64_t n, int64_t m, double* result);

/* ---- reductions and maps ------------------------------------------------------------------- */
/** The sum of x's n elements, `stride` apart (stride >= 1), in float64, compensated. */
kw_status kw_sum(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t stride,
                 double* result);
/** The sum of x(i) y(i) over n elements of each (strides >= 1), in float64, compensated. */
kw_status kw_dot(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t x_stride,
                 const void* y, int64_t y_stride, double* result);
/** The Euclidean norm of x's n elements, `stride` apart, in float64, scaled. */
kw_status kw_norm2(kw_type type, kw_memory memory, int64_t n, const void* x, int64_t stride,
                   double* result);
/** The smallest element and its first index; NaN is an error, as is n = 0. */
kw_status kw_min_location(kw_type type, kw_memory memory, int64_t n, const void* x,
                          int64_t stride, double* value, int64_t* index);
/** The largest element and its first index; NaN is an error, as is n = 0. */
kw_status kw_max_location(kw_type type, kw_memory memory, int64_t n, const void* x,
                          int64_t stride, double* value, int64_t* index);

/** The maps of kw_transform. */
typedef enum kw_map {
  KW_MAP_SAXPY = 0,          /**< out = parameter * x + y */
  KW_MAP_REL_DIFF = 1,       /**< out = 2 (x - y) / (x + y) */
  KW_MAP_COS2_PLUS_SIN2 = 2, /**< out = cos^2 x + sin^2 x (y unused, may be NULL) */
  KW_MAP_SELU = 3,           /**< out = 1.05 (x > 0 ? x : 1.67 e^x - 1.67) (y unused) */
  KW_ENUM_RANGE(KW_MAP)
} kw_map;
/** out(i) = map(x(i), y(i)) for contiguous vectors; out may be x or y itself. */
kw_status kw_transform(kw_type type, kw_memory memory, kw_map map, double parameter, int64_t n,
                       void* out, const void* x, const void* y);

/* ---- dense linear algebra ------------------------------------------------------------------ */
/** C = alpha A B + beta C; A m x k, B k x n, C m x n, all in `layout`. */
kw_status kw_gemm(kw_type type, kw_memory memory, kw_layout layout, int64_t m, int64_t n,
                  int64_t k, double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                  double beta, void* c, int64_t ldc);
/** out(q) = sum_i (A B)(i, q) for A m x j and B j x k in `layout`; out has k elements. */
kw_status kw_matmul_colsum(kw_type type, kw_memory memory, kw_layout layout, int64_t m,
                           int64_t j, int64_t k, const void* a, int64_t lda, const void* b,
                           int64_t ldb, void* out);

/* ---- QR -------------------------------------------------------------------------------------- */
/** The shapes of kw_qr's Q and R. */
typedef enum kw_qr_mode {
  KW_QR_REDUCED = 0, /**< Q m x n, R n x n (NumPy's mode="reduced") */
  KW_QR_COMPLETE = 1, /**< Q m x m, R m x n (NumPy's mode="complete") */
  KW_ENUM_RANGE(KW_QR_MODE)
} kw_qr_mode;
/** The code path of a QR call. */
typedef enum kw_qr_implementation {
  KW_QR_AUTOMATIC = 0, /**< the vendor library where the build has one for the space, else generic */
  KW_QR_GENERIC = 1,   /**< Kernwerk's blocked Householder QR on Kokkos */
  KW_QR_VENDOR = 2,    /**< LAPACK (host) or cuSOLVER (CUDA); KW_UNSUPPORTED where the build has none */
  KW_ENUM_RANGE(KW_QR_IMPLEMENTATION)
} kw_qr_implementation;
/** Which product kw_apply_q forms. */
typedef enum kw_qr_product {
  KW_QR_Q_TRANSPOSE_C = 0, /**< C := Q^T C */
  KW_QR_Q_C = 1,           /**< C := Q C */
  KW_ENUM_RANGE(KW_QR_PRODUCT)
} kw_qr_product;
/** A = Q R for A m x n with m >= n >= 1, all matrices in `layout`: Q has orthonormal columns and R
 * is upper triangular with a non-negative diagonal (the sign rule that makes it unique for a full
 * column rank A). A non-finite value in A is an error naming "a". */
kw_status kw_qr(kw_type type, kw_memory memory, kw_layout layout, kw_qr_mode mode,
                kw_qr_implementation implementation, int64_t m, int64_t n, const void* a,
                int64_t lda, void* q, int64_t ldq, void* r, int64_t ldr);
/** LAPACK's factored form of A (geqrf): factors (m x n, ldf; may be `a` itself with the same
 * leading dimension) receives R on and above its diagonal and the Householder vectors below it,
 * tau (n elements) their scalars. */
kw_status kw_qr_factor(kw_type type, kw_memory memory, kw_layout layout,
                       kw_qr_implementation implementation, int64_t m, int64_t n, const void* a,
                       int64_t lda, void* factors, int64_t ldf, void* tau);
/** C := Q^T C or Q C in place, for the Q of kw_qr_factor's factors (m x n) and tau (n); C is
 * m x columns (ldc). */
kw_status kw_apply_q(kw_type type, kw_memory memory, kw_layout layout, kw_qr_product product,
                     kw_qr_implementation implementation, int64_t m, int64_t n,
                     const void* factors, int64_t ldf, const void* tau, int64_t columns, void* c,
                     int64_t ldc);
/** The least-squares solution X (n x columns, ldx) of A X = B for A m x n (m >= n) of full
 * column rank and B m x columns (ldb), through QR; a zero on R's diagonal is an error naming
 * "a". */
kw_status kw_solve_least_squares(kw_type type, kw_memory memory, kw_layout layout,
                                 kw_qr_implementation implementation, int64_t m, int64_t n,
                                 const void* a, int64_t lda, int64_t columns, const void* b,
                                 int64_t ldb, void* x, int64_t ldx);

/* ---- FFT ------------------------------------------------------------------------------------- */
/** What a kw_fft_plan transforms (kernwerk::fft_form). */
typedef enum kw_fft_form {
  KW_FFT_LINE = 0,  /**< one 1-D transform of `length` points */
  KW_FFT_LINES = 1, /**< `count` 1-D transforms of `length` points, each contiguous */
  KW_FFT_PLANE = 2, /**< one 2-D transform of a `rows` x `length` array */
  KW_ENUM_RANGE(KW_FFT_FORM)
} kw_fft_form;
/** The shape of a kw_fft_plan; unused sizes are 1 (kernwerk::fft_shape). */
typedef struct kw_fft_shape {
  int form;       /**< a kw_fft_form */
  int64_t count;  /**< KW_FFT_LINES: the transforms in the batch */
  int64_t rows;   /**< KW_FFT_PLANE: the rows */
  int64_t length; /**< the points of one line, or the plane's columns */
} kw_fft_shape;
/** Options of kw_fft_plan_create; kw_fft_options_default fills the defaults. */
typedef struct kw_fft_options {
  int real;          /**< 0 (default): complex to complex; 1: forward real to complex (the half
                          spectrum, n/2 + 1 points along the contiguous axis), inverse complex to
                          real */
  int normalization; /**< 0 (default, NumPy's): the inverse scaled by 1/N; 1: both by 1/sqrt(N);
                          2: the forward by 1/N */
  int layout;        /**< a kw_layout (default KW_ROW_MAJOR). Arrays are contiguous: row-major
                          lines are `count` rows of `length`, column-major ones `length` x `count`;
                          a plane is `rows` x `length` either way, and a real transform halves
                          the contiguous axis */
  int check_input;   /**< 0 (default, as FFTW and cuFFT): a NaN or infinity propagates to the
                          outputs of its transform; 1: it is an error naming "in" (one more read
                          of the input) */
} kw_fft_options;
/** Fills the defaults of kw_fft_options (does nothing for NULL). */
void kw_fft_options_default(kw_fft_options* options);
/** A plan for repeated transforms of one shape, type and memory (kernwerk::fft_plan): the
 * vendor's plan (FFTW on the host, cuFFT on CUDA) and its work area, made once. */
typedef struct kw_fft_plan kw_fft_plan;
/** Makes *plan for arrays of `type` in `memory`; options may be NULL. Complex values are
 * interleaved real and imaginary parts of that type (C's float _Complex and double _Complex,
 * C++'s std::complex, Fortran's complex), and complex arrays must be aligned to the size of one
 * value (8 bytes for float, 16 for double), as allocations are: a misaligned one is an error. */
kw_status kw_fft_plan_create(kw_type type, kw_memory memory, const kw_fft_shape* shape,
                             const kw_fft_options* options, kw_fft_plan** plan);
/** The forward transform of in into out (complex: in may be out). */
kw_status kw_fft_forward(const kw_fft_plan* plan, const void* in, void* out);
/** The inverse transform of in into out (complex: in may be out). */
kw_status kw_fft_inverse(const kw_fft_plan* plan, const void* in, void* out);
/** Destroys a plan (NULL is fine); call it before kw_finalize. */
kw_status kw_fft_plan_destroy(kw_fft_plan* plan);

/* ---- conjugate gradient -------------------------------------------------------------------- */
/** What kw_cg_dense and kw_cg_csr did. */
typedef struct kw_cg_result {
  int64_t iterations;   /**< steps taken */
  double residual_norm; /**< ||r|| / ||b|| at the end */
} kw_cg_result;
/** A x = b for symmetric positive-definite A (n x n, `layout`, lda); x holds the initial guess
 * and receives the solution, only on success. history (may be NULL) receives up to
 * history_capacity relative residuals, before each step and at the end. */
kw_status kw_cg_dense(kw_type type, kw_memory memory, kw_layout layout, int64_t n, const void* a,
                      int64_t lda, const void* b, void* x, double tolerance,
                      int64_t max_iterations, kw_cg_result* result, double* history,
                      int64_t history_capacity);
/** kw_cg_dense with A in compressed sparse rows: row_starts (n + 1), columns and values
 * (row_starts[n] entries). */
kw_status kw_cg_csr(kw_type type, kw_memory memory, int64_t n, const int64_t* row_starts,
                    const int64_t* columns, const void* values, const void* b, void* x,
                    double tolerance, int64_t max_iterations, kw_cg_result* result,
                    double* history, int64_t history_capacity);

#ifdef __cplusplus
}
#endif

#endif /* KERNWERK_H */
