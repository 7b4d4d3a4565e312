// Times MuJoCo's mj_kinematics + mj_collision over a batch of states on N threads (pthreads,
// one mjData per thread, each thread a contiguous chunk of the batch): what MuJoCo needs at
// the least to turn a batch of qpos into contacts. Side by side with collide.Collider.detect
// in bench/python_bench.py.
// Usage: mj_batch_timer MODEL.xml QPOS.bin NSTATE NTHREAD REPEATS
// QPOS.bin: NSTATE * nq float64 values (native byte order). Prints the best repeat.
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
  mjData* d;
  const double* qpos;
  int begin, end;
  long ncon;
} Task;

static void* run(void* arg) {
  Task* t = (Task*)arg;
  const mjModel* m = t->m;
  long ncon = 0;
  for (int s = t->begin; s < t->end; s++) {
    mju_copy(t->d->qpos, t->qpos + (size_t)s * m->nq, m->nq);
    mj_kinematics(m, t->d);
    mj_collision(m, t->d);
    ncon += t->d->ncon;
  }
  t->ncon = ncon;
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s MODEL.xml QPOS.bin NSTATE NTHREAD REPEATS\n", argv[0]);
    return 2;
  }
  int nstate = atoi(argv[3]), nthread = atoi(argv[4]), repeats = atoi(argv[5]);
  char err[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, err, sizeof(err));
  if (!m) {
    fprintf(stderr, "load error: %s\n", err);
    return 1;
  }
  double* qpos = malloc(sizeof(double) * (size_t)nstate * m->nq);
  FILE* f = fopen(argv[2], "rb");
  if (!f || fread(qpos, sizeof(double), (size_t)nstate * m->nq, f) != (size_t)nstate * m->nq) {
    fprintf(stderr, "bad qpos file %s\n", argv[2]);
    return 1;
  }
  fclose(f);
  Task* tasks = calloc(nthread, sizeof(Task));
  pthread_t* th = calloc(nthread, sizeof(pthread_t));
  int chunk = (nstate + nthread - 1) / nthread;
  for (int i = 0; i < nthread; i++) {
    tasks[i].m = m;
    tasks[i].d = mj_makeData(m);
    tasks[i].qpos = qpos;
    tasks[i].begin = i * chunk < nstate ? i * chunk : nstate;
    tasks[i].end = (i + 1) * chunk < nstate ? (i + 1) * chunk : nstate;
  }
  double best = 1e300;
  long ncon = 0;
  for (int r = 0; r < repeats; r++) {
    double t0 = now();
    for (int i = 0; i < nthread; i++) pthread_create(&th[i], NULL, run, &tasks[i]);
    ncon = 0;
    for (int i = 0; i < nthread; i++) {
      pthread_join(th[i], NULL);
      ncon += tasks[i].ncon;
    }
    double dt = now() - t0;
    if (dt < best) best = dt;
  }
  printf("ncon: %ld\n", ncon);
  printf("seconds: %.9f\n", best);
  for (int i = 0; i < nthread; i++) mj_deleteData(tasks[i].d);
  mj_deleteModel(m);
  free(qpos);
  free(tasks);
  free(th);
  return 0;
}
