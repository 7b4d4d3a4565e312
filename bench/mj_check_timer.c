// Configurations checked per second by MuJoCo: mj_kinematics + mj_collision per configuration
// (a configuration "collides" when ncon > 0), on NTHREAD threads with one mjData each, the way
// `check_rate` (crates/collide-cli/examples/check_rate.rs) times collide's in_collision_batch.
// Usage: mj_check_timer MODEL.xml STATES.txt NTHREAD [MIN_SECONDS]
// STATES.txt: "nstate nq 0" then nq qpos values per state (bench/planning.py writes it).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

typedef struct {
  const mjModel* m;
  const double* qpos;
  int first, count, passes, hits;
} Job;

static void* run(void* arg) {
  Job* j = (Job*)arg;
  mjData* d = mj_makeData(j->m);
  int nq = j->m->nq, hits = 0;
  for (int p = 0; p < j->passes; p++) {
    for (int s = j->first; s < j->first + j->count; s++) {
      mju_copy(d->qpos, j->qpos + (size_t)s * nq, nq);
      mj_kinematics(j->m, d);
      mj_collision(j->m, d);
      hits += d->ncon > 0;
    }
  }
  j->hits = hits;
  mj_deleteData(d);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s MODEL.xml STATES.txt NTHREAD [MIN_SECONDS]\n", argv[0]);
    return 2;
  }
  int nthread = atoi(argv[3]);
  double min_seconds = argc > 4 ? atof(argv[4]) : 1.0;
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "load error: %s\n", err);
    return 1;
  }
  FILE* f = fopen(argv[2], "r");
  int nstate, nq, nmocap;
  if (!f || fscanf(f, "%d %d %d", &nstate, &nq, &nmocap) != 3 || nq != m->nq || nthread < 1) {
    fprintf(stderr, "bad states file or thread count\n");
    return 1;
  }
  double* qpos = malloc(sizeof(double) * nstate * nq);
  for (int i = 0; i < nstate * nq; i++) {
    if (fscanf(f, "%lf", qpos + i) != 1) {
      fprintf(stderr, "short states file\n");
      return 1;
    }
  }
  fclose(f);
  pthread_t th[64];
  Job jobs[64];
  int passes = 1, hits = 0;
  double t = 0;
  for (;;) {
    double t0 = now();
    int per = (nstate + nthread - 1) / nthread;
    for (int k = 0; k < nthread; k++) {
      int first = k * per, count = first + per > nstate ? nstate - first : per;
      jobs[k] = (Job){m, qpos, first, count < 0 ? 0 : count, passes, 0};
      pthread_create(&th[k], NULL, run, &jobs[k]);
    }
    hits = 0;
    for (int k = 0; k < nthread; k++) {
      pthread_join(th[k], NULL);
      hits += jobs[k].hits;
    }
    t = now() - t0;
    if (t >= min_seconds) break;
    passes *= 2;
  }
  printf("colliding_fraction: %.4f\n", (double)hits / passes / nstate);
  printf("mujoco_configs_per_s: %.0f\n", (double)passes * nstate / t);
  free(qpos);
  mj_deleteModel(m);
  return 0;
}
