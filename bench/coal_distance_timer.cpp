// Times coal's distance queries (C++, against the headers and libcoal the `coal` wheel ships in
// its cmeel prefix) on the pairs of bench/coal_bench.py, the way the `distance_rate` example
// times collide: per pair, REPS repeated queries after a warm-up; prints the median over pairs
// of the per-query time, for each GJK variant, with the cached guess (the previous query's
// separating direction, warm-starting each repeat: coal's fastest settings).
// Usage: coal_distance_timer PAIRS.txt [REPS]
// PAIRS.txt: "nmesh" then per mesh "nvert" and 3*nvert numbers; "npair" then per pair, twice:
// type (0 sphere, 1 capsule, 2 ellipsoid, 3 cylinder, 4 box, 5 mesh), size[3] (MuJoCo half
// sizes; a mesh's size[0] is its index), pos[3], quat[4] (w,x,y,z).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <coal/collision_data.h>
#include <coal/distance.h>
#include <coal/shape/convex.h>
#include <coal/shape/geometric_shapes.h>

using namespace coal;

static std::shared_ptr<ShapeBase> make(int t, const double* s,
                                       const std::vector<std::vector<Vec3s>>& meshes) {
  switch (t) {
    case 0: return std::make_shared<Sphere>(s[0]);
    case 1: return std::make_shared<Capsule>(s[0], 2 * s[1]);
    case 2: return std::make_shared<Ellipsoid>(s[0], s[1], s[2]);
    case 3: return std::make_shared<Cylinder>(s[0], 2 * s[1]);
    case 4: return std::make_shared<Box>(2 * s[0], 2 * s[1], 2 * s[2]);
    default: {
      const auto& v = meshes[(int)s[0]];
      std::vector<Vec3s> pts(v.begin(), v.end());
      return std::shared_ptr<ShapeBase>(ConvexBase::convexHull(pts.data(), (unsigned)pts.size(), false, nullptr));
    }
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PAIRS.txt [REPS]\n", argv[0]);
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 2000;
  FILE* f = fopen(argv[1], "r");
  int nmesh;
  if (!f || fscanf(f, "%d", &nmesh) != 1) return 1;
  std::vector<std::vector<Vec3s>> meshes(nmesh);
  for (auto& m : meshes) {
    int n;
    if (fscanf(f, "%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
      double x, y, z;
      if (fscanf(f, "%lf %lf %lf", &x, &y, &z) != 3) return 1;
      m.push_back(Vec3s(x, y, z));
    }
  }
  int npair;
  if (fscanf(f, "%d", &npair) != 1) return 1;
  struct Pair {
    std::shared_ptr<ShapeBase> a, b;
    Transform3s ta, tb;
  };
  std::vector<Pair> pairs;
  for (int k = 0; k < npair; k++) {
    Pair p;
    for (int side = 0; side < 2; side++) {
      int t;
      double s[3], x[3], q[4];
      if (fscanf(f, "%d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &t, s, s + 1, s + 2, x, x + 1,
                 x + 2, q, q + 1, q + 2, q + 3) != 11)
        return 1;
      Transform3s tf(Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix(), Vec3s(x[0], x[1], x[2]));
      (side ? p.b : p.a) = make(t, s, meshes);
      (side ? p.tb : p.ta) = tf;
    }
    pairs.push_back(p);
  }
  fclose(f);
  const char* names[] = {"default", "nesterov", "polyak"};
  GJKVariant variants[] = {GJKVariant::DefaultGJK, GJKVariant::NesterovAcceleration,
                           GJKVariant::PolyakAcceleration};
  double checksum = 0;
  for (int v = 0; v < 3; v++) {
    std::vector<double> per;
    for (auto& p : pairs) {
      ComputeDistance fn(p.a.get(), p.b.get());
      DistanceRequest req;
      req.gjk_variant = variants[v];
      req.gjk_initial_guess = GJKInitialGuess::CachedGuess;
      req.enable_signed_distance = true;
      req.enable_nearest_points = true;
      DistanceResult res;
      for (int i = 0; i < 20; i++) {
        res.clear();
        fn(p.ta, p.tb, req, res);
        req.updateGuess(res);
      }
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; i++) {
        res.clear();
        checksum += fn(p.ta, p.tb, req, res);
        req.updateGuess(res);
      }
      auto t1 = std::chrono::steady_clock::now();
      per.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / reps);
    }
    std::sort(per.begin(), per.end());
    printf("coal_%s_median_ns: %.1f\n", names[v], per[per.size() / 2]);
  }
  fprintf(stderr, "checksum %g\n", checksum);
  return 0;
}
