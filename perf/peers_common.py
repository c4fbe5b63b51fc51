"""What the peer scripts share: the points, the float64 spot check, the timing."""
import time

import numpy as np


def uniform_sphere(count, random):
    """Area-uniform (lat, lon) in radians, as kernwerk_bench_nearest draws them."""
    return np.stack([np.arcsin(random.uniform(-1, 1, count)), np.pi * random.uniform(-1, 1, count)], 1)


def wrong_of_256(observations, references, indices, random):
    """How many of 256 random observations got a neighbour farther than the float64 nearest."""
    sample = random.choice(observations.shape[0], 256, replace=False)
    o = observations[sample]
    h = (np.sin((references[None, :, 0] - o[:, None, 0]) / 2) ** 2
         + np.cos(o[:, None, 0]) * np.cos(references[None, :, 0]) * np.sin((references[None, :, 1] - o[:, None, 1]) / 2) ** 2)
    return int(np.sum(h[np.arange(256), indices[sample]] > h.min(1)))


def timed(run, repeat, warm_up):
    """Median and best of `repeat` runs (after one untimed run if warm_up), and the last result."""
    if warm_up:
        run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[0], result


def record(name, n, m, median, best, wrong):
    return {"variant": name, "observations": n, "references": m, "median_seconds": median,
            "best_seconds": best, "pairs_per_second": n * m / median, "wrong_of_256": wrong}


def workload_record(workload, variant, size, median, best, nbytes, flops, note=""):
    """A record in kernwerk_bench_workloads' schema."""
    return {"workload": workload, "variant": variant, "size": size, "median_seconds": median,
            "best_seconds": best, "bytes": nbytes, "flops": flops, "note": note}
