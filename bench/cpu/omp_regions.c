// omp_regions.c: an LD_PRELOAD wrapper of libomp's __kmpc_fork_call and
// __kmpc_barrier that records, for every parallel region a JIT-compiled step
// forks, the region's wall time and each thread's time in it outside
// barriers (bench/cpu/omp_regions.py builds and reads it). With
// OMP_REGIONS_ONE_THREAD set, the step's regions run on one thread (the
// per-region reference for the same code).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*microtask_t)(int *, int *, ...);
typedef void (*fork_call_t)(void *, int, microtask_t, ...);
typedef void (*barrier_t)(void *, int);

enum { kMaxRegions = 1 << 20, kMaxArgs = 8 };
static float wall[kMaxRegions], busy[kMaxRegions][2];
static void *task[kMaxRegions];
static uint64_t regions;
static microtask_t current;
static double inTask[2], inBarrier[2];
static __thread int threadIndex;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

void __kmpc_barrier(void *loc, int gtid) {
  static barrier_t real;
  if (!real)
    real = (barrier_t)dlsym(RTLD_NEXT, "__kmpc_barrier");
  double t0 = now();
  real(loc, gtid);
  inBarrier[threadIndex] += now() - t0;
}

// Arguments beyond the region's own are ignored by its outlined function.
static void timedTask(int *gtid, int *btid, void *a0, void *a1, void *a2,
                      void *a3, void *a4, void *a5, void *a6, void *a7) {
  threadIndex = *btid & 1;
  double t0 = now();
  current(gtid, btid, a0, a1, a2, a3, a4, a5, a6, a7);
  inTask[threadIndex] += now() - t0;
}

void __kmpc_fork_call(void *loc, int argc, microtask_t fn, ...) {
  static fork_call_t real;
  if (!real) {
    real = (fork_call_t)dlsym(RTLD_NEXT, "__kmpc_fork_call");
    // Before the first region: mpt-run has set OMP_NUM_THREADS by then.
    if (getenv("OMP_REGIONS_ONE_THREAD"))
      ((void (*)(int))dlsym(RTLD_NEXT, "omp_set_num_threads"))(1);
  }
  if (argc > kMaxArgs) {
    fprintf(stderr, "omp_regions: a region with %d arguments\n", argc);
    abort();
  }
  va_list ap;
  void *a[kMaxArgs] = {0};
  va_start(ap, fn);
  for (int i = 0; i < argc; ++i)
    a[i] = va_arg(ap, void *);
  va_end(ap);
  current = fn;
  inTask[0] = inTask[1] = inBarrier[0] = inBarrier[1] = 0;
  double t0 = now();
  real(loc, argc, (microtask_t)timedTask, a[0], a[1], a[2], a[3], a[4], a[5],
       a[6], a[7]);
  double w = now() - t0;
  if (regions < kMaxRegions) {
    wall[regions] = w * 1e6;
    busy[regions][0] = (inTask[0] - inBarrier[0]) * 1e6;
    busy[regions][1] = (inTask[1] - inBarrier[1]) * 1e6;
    task[regions] = (void *)fn;
  }
  ++regions;
}

__attribute__((destructor)) static void finish(void) {
  const char *path = getenv("OMP_REGIONS_LOG");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f)
    return;
  for (uint64_t i = 0; i < regions && i < kMaxRegions; ++i)
    fprintf(f, "%p %.1f %.1f %.1f\n", task[i], wall[i], busy[i][0],
            busy[i][1]);
  fclose(f);
}
