#pragma once
// Point layouts that users bring, for the nearest-neighbour benchmark and tests. On the sphere:
// reference sets in one region, on a coastline-like ring, on tracks, in clusters, mixed with
// uniform ones, as row-major (lat, lon) in radians. In 2-D and 3-D (euclidean_names): uniform,
// clustered, track-shaped and duplicated sets in the unit square or cube, as row-major (x, y[, z]).
// Each is generated from a seed.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "text_lists.hpp"

namespace kernwerk::layouts {

struct point_pair {
  std::vector<double> observations, references;  // (lat, lon) rows
};

class generator {
 public:
  explicit generator(std::uint64_t seed) : random_(seed) {}

  double uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(random_);
  }
  void add_uniform(std::vector<double>& points, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      points.push_back(std::asin(uniform(-1.0, 1.0)));
      points.push_back(M_PI * uniform(-1.0, 1.0));
    }
  }
  // Area-uniform in the cap of angular radius `radius` around (lat0, lon0).
  void add_cap(std::vector<double>& points, std::size_t count, double lat0, double lon0,
               double radius) {
    for (std::size_t i = 0; i < count; ++i) {
      const double theta = radius * std::sqrt(uniform(0.0, 1.0)), phi = uniform(-M_PI, M_PI);
      if (std::fabs(lat0) == M_PI / 2) {  // around a pole: the longitude is the direction
        points.push_back(lat0 > 0 ? M_PI / 2 - theta : theta - M_PI / 2);
        points.push_back(phi);
        continue;
      }
      const double lat = std::asin(std::sin(lat0) * std::cos(theta) +
                                   std::cos(lat0) * std::sin(theta) * std::cos(phi));
      double lon = lon0 + std::atan2(std::sin(phi) * std::sin(theta) * std::cos(lat0),
                                     std::cos(theta) - std::sin(lat0) * std::sin(lat));
      lon = std::remainder(lon, 2 * M_PI);
      points.push_back(lat);
      points.push_back(lon);
    }
  }
  // Clusters as places on land are: `clusters` centres between latitudes -1.2 and 1.2, caps of
  // angular radius 1e-4 to 1e-2 (log-uniform), and sizes that fall off as a power of the rank
  // (the largest holds about a tenth of the points).
  struct cluster_set {
    std::vector<double> lat, lon, radius;
    std::discrete_distribution<std::size_t> pick;
  };
  cluster_set make_clusters(std::size_t clusters) {
    cluster_set set;
    std::vector<double> weights;
    for (std::size_t c = 0; c < clusters; ++c) {
      set.lat.push_back(uniform(-1.2, 1.2));
      set.lon.push_back(M_PI * uniform(-1.0, 1.0));
      set.radius.push_back(std::pow(10.0, uniform(-4.0, -2.0)));
      weights.push_back(1.0 / std::pow(double(c + 1), 1.1));
    }
    set.pick = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
    return set;
  }
  // `count` points, each in a cluster drawn by size, area-uniform in its cap.
  void add_clustered(std::vector<double>& points, std::size_t count, cluster_set& set) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t c = set.pick(random_);
      add_cap(points, 1, set.lat[c], set.lon[c], set.radius[c]);
    }
  }
  // A band of latitudes [lat0 - width/2, lat0 + width/2] all around.
  void add_ring(std::vector<double>& points, std::size_t count, double lat0, double width) {
    for (std::size_t i = 0; i < count; ++i) {
      points.push_back(lat0 + width * uniform(-0.5, 0.5));
      points.push_back(M_PI * uniform(-1.0, 1.0));
    }
  }
  // Points on `tracks` random great circles.
  void add_tracks(std::vector<double>& points, std::size_t count, int tracks, std::uint64_t seed) {
    std::mt19937_64 circles(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::vector<std::array<double, 6>> frames;
    for (int t = 0; t < tracks; ++t) {
      // Two orthonormal vectors spanning a random plane through the centre.
      double a[3] = {unit(circles), unit(circles), unit(circles)};
      double b[3] = {unit(circles), unit(circles), unit(circles)};
      normalise(a);
      const double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      for (int c = 0; c < 3; ++c) b[c] -= d * a[c];
      normalise(b);
      frames.push_back({a[0], a[1], a[2], b[0], b[1], b[2]});
    }
    for (std::size_t i = 0; i < count; ++i) {
      const auto& f = frames[i % frames.size()];
      const double s = uniform(-M_PI, M_PI);
      const double x = std::cos(s) * f[0] + std::sin(s) * f[3];
      const double y = std::cos(s) * f[1] + std::sin(s) * f[4];
      const double z = std::cos(s) * f[2] + std::sin(s) * f[5];
      points.push_back(std::atan2(z, std::hypot(x, y)));
      points.push_back(std::atan2(y, x));
    }
  }

 private:
  static void normalise(double* v) {
    const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int c = 0; c < 3; ++c) v[c] /= norm;
  }
  std::mt19937_64 random_;
};

// The layouts, by name.
inline const std::vector<std::string>& names() {
  static const std::vector<std::string> all = {
      "uniform",     // both sets area-uniform
      "cap-1e-2",    // references in a cap of 0.01 rad, observations uniform
      "cap-1e-5",    // references in a cap of 1e-5 rad, observations uniform
      "ring",        // references on one latitude, 1e-6 rad wide; observations uniform
      "obs-cap",     // observations in a cap of 0.01 rad, references uniform
      "half-cap",    // half the references in a 1e-5 rad cap, half uniform
      "same-cap",    // references and observations in the same 0.01 rad cap
      "tracks",      // references and observations on 3 great circles
      "duplicates",  // every reference 8 times, observations uniform
      "polar",       // references within 0.05 rad of the north pole, across the date line
      "clusters",    // references and observations in the same few thousand tight clusters of
                     // uneven size (places on land)
  };
  return all;
}

// n observations and m references of a layout; an unknown name gives empty sets.
inline point_pair make(const std::string& name, std::size_t n, std::size_t m, std::uint64_t seed) {
  generator g(seed);
  point_pair p;
  p.observations.reserve(2 * n);
  p.references.reserve(2 * m);
  const double lat0 = 0.61, lon0 = 2.3;
  if (name == "uniform") {
    g.add_uniform(p.observations, n);
    g.add_uniform(p.references, m);
  } else if (name == "cap-1e-2" || name == "cap-1e-5") {
    g.add_uniform(p.observations, n);
    g.add_cap(p.references, m, lat0, lon0, name == "cap-1e-2" ? 1e-2 : 1e-5);
  } else if (name == "ring") {
    g.add_uniform(p.observations, n);
    g.add_ring(p.references, m, lat0, 1e-6);
  } else if (name == "obs-cap") {
    g.add_cap(p.observations, n, lat0, lon0, 1e-2);
    g.add_uniform(p.references, m);
  } else if (name == "half-cap") {
    g.add_uniform(p.observations, n);
    g.add_cap(p.references, m / 2, lat0, lon0, 1e-5);
    g.add_uniform(p.references, m - m / 2);
  } else if (name == "same-cap") {
    g.add_cap(p.observations, n, lat0, lon0, 1e-2);
    g.add_cap(p.references, m, lat0, lon0, 1e-2);
  } else if (name == "tracks") {
    g.add_tracks(p.observations, n, 3, seed ^ 0x5eed);
    g.add_tracks(p.references, m, 3, seed ^ 0x5eed);
  } else if (name == "duplicates") {
    g.add_uniform(p.observations, n);
    std::vector<double> distinct;
    const std::size_t count = (m + 7) / 8;
    g.add_uniform(distinct, count);
    for (std::size_t j = 0; j < m; ++j) {
      p.references.push_back(distinct[2 * (j % count)]);
      p.references.push_back(distinct[2 * (j % count) + 1]);
    }
  } else if (name == "polar") {
    g.add_uniform(p.observations, n);
    g.add_cap(p.references, m, M_PI / 2, M_PI, 0.05);
  } else if (name == "clusters") {
    auto clusters = g.make_clusters(std::max<std::size_t>(1, std::min<std::size_t>(3000, m / 16)));
    g.add_clustered(p.references, m, clusters);
    g.add_clustered(p.observations, n, clusters);
  }
  return p;
}

// The Euclidean layouts, by name.
inline const std::vector<std::string>& euclidean_names() {
  static const std::vector<std::string> all = {
      "uniform",     // both sets uniform in the unit square or cube
      "clusters",    // both sets in the same few thousand tight clusters of uneven size
                     // (Gaussian, spreads 1e-4 to 1e-2; a particle or sensor catalogue)
      "tracks",      // both sets on 3 straight segments across the cube, no thickness
      "duplicates",  // every reference 8 times, observations uniform
  };
  return all;
}

// The dimensions of a comma-separated list of 2s and 3s (the benchmarks' --dimension); empty
// where an entry is neither.
inline std::vector<std::size_t> euclidean_dimensions(const std::string& list) {
  std::vector<std::size_t> dimensions;
  for (const std::string& entry : kernwerk_perf::split(list, ',')) {
    if (entry != "2" && entry != "3") return {};
    dimensions.push_back(entry == "2" ? 2 : 3);
  }
  return dimensions;
}

// n observations and m references of a Euclidean layout in `dimension` (2 or 3) coordinates; an
// unknown name gives empty sets.
inline point_pair make_euclidean(const std::string& name, std::size_t n, std::size_t m, int dimension,
                                 std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  point_pair p;
  p.observations.reserve(std::size_t(dimension) * n);
  p.references.reserve(std::size_t(dimension) * m);
  const auto add_uniform = [&](std::vector<double>& points, std::size_t count) {
    for (std::size_t i = 0; i < std::size_t(dimension) * count; ++i) points.push_back(unit(random));
  };
  if (name == "uniform") {
    add_uniform(p.observations, n);
    add_uniform(p.references, m);
  } else if (name == "clusters") {
    const std::size_t clusters = std::max<std::size_t>(1, std::min<std::size_t>(3000, m / 16));
    std::vector<double> centres, spreads, weights;
    for (std::size_t c = 0; c < clusters; ++c) {
      for (int d = 0; d < dimension; ++d) centres.push_back(unit(random));
      spreads.push_back(std::pow(10.0, -4.0 + 2.0 * unit(random)));
      weights.push_back(1.0 / std::pow(double(c + 1), 1.1));  // the largest about a tenth
    }
    std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
    for (auto [points, count] : {std::pair{&p.references, m}, std::pair{&p.observations, n}})
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t c = pick(random);
        for (int d = 0; d < dimension; ++d)
          points->push_back(centres[c * dimension + d] + spreads[c] * normal(random));
      }
  } else if (name == "tracks") {
    std::vector<double> ends;  // 3 segments: start and end points
    for (int e = 0; e < 6 * dimension; ++e) ends.push_back(unit(random));
    for (auto [points, count] : {std::pair{&p.references, m}, std::pair{&p.observations, n}})
      for (std::size_t i = 0; i < count; ++i) {
        const double* a = &ends[2 * dimension * (i % 3)];
        const double t = unit(random);
        for (int d = 0; d < dimension; ++d) points->push_back(a[d] + t * (a[dimension + d] - a[d]));
      }
  } else if (name == "duplicates") {
    add_uniform(p.observations, n);
    std::vector<double> distinct;
    const std::size_t count = (m + 7) / 8;
    add_uniform(distinct, count);
    for (std::size_t j = 0; j < m; ++j)
      for (int d = 0; d < dimension; ++d) p.references.push_back(distinct[dimension * (j % count) + d]);
  }
  return p;
}

}  // namespace kernwerk::layouts
