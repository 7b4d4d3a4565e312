// Times MuJoCo's mj_collision from C (no Python call overhead), the way `collide bench` times
// its collider: poses precomputed by mj_kinematics once per state, then mj_collision repeated.
// Usage: mj_collision_timer MODEL.xml STATES.txt [MIN_SECONDS [PASSES]]
// With PASSES (> 0), exactly that many passes over the states are run instead of doubling until
// MIN_SECONDS have passed (for instruction counts: bench/instructions.sh).
// STATES.txt: "nstate nq nmocap" then per state nq qpos values, 3*nmocap mocap_pos values and
// 4*nmocap mocap_quat values (whitespace separated). Built by bench/mujoco_vs_collide.py.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL.xml STATES.txt [MIN_SECONDS [PASSES]]\n", argv[0]);
    return 2;
  }
  double min_seconds = argc > 3 ? atof(argv[3]) : 1.0;
  long passes = argc > 4 ? atol(argv[4]) : 0;
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "load error: %s\n", err);
    return 1;
  }
  FILE* f = fopen(argv[2], "r");
  int nstate, nq, nmocap;
  if (!f || fscanf(f, "%d %d %d", &nstate, &nq, &nmocap) != 3 || nq != m->nq ||
      nmocap != m->nmocap || nstate < 1) {
    fprintf(stderr, "bad states file %s\n", argv[2]);
    return 1;
  }
  mjData** d = malloc(sizeof(mjData*) * nstate);
  long ncon = 0;
  for (int s = 0; s < nstate; s++) {
    d[s] = mj_makeData(m);
    for (int i = 0; i < nq; i++) fscanf(f, "%lf", d[s]->qpos + i);
    for (int i = 0; i < 3 * nmocap; i++) fscanf(f, "%lf", d[s]->mocap_pos + i);
    for (int i = 0; i < 4 * nmocap; i++) fscanf(f, "%lf", d[s]->mocap_quat + i);
    mj_kinematics(m, d[s]);
    mj_collision(m, d[s]);
    ncon += d[s]->ncon;
  }
  fclose(f);
  long iters = passes > 0 ? passes : 1;
  double elapsed;
  for (;;) {
    double t = now();
    for (long k = 0; k < iters; k++)
      for (int s = 0; s < nstate; s++) mj_collision(m, d[s]);
    elapsed = now() - t;
    if (passes > 0 || elapsed >= min_seconds) break;
    iters *= 2;
  }
  printf("ngeom: %d\n", m->ngeom);
  printf("contacts_per_state: %.1f\n", (double)ncon / nstate);
  printf("mujoco_us_per_state: %.3f\n", elapsed * 1e6 / (iters * nstate));
  for (int s = 0; s < nstate; s++) mj_deleteData(d[s]);
  free(d);
  mj_deleteModel(m);
  return 0;
}
