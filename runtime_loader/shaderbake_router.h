/* SPDX-License-Identifier: MIT */
/*
 * shaderbake_router.h — the runtime router: at a draw, a ready pipeline with no compile on the render thread.
 *
 * A bundle removes the SPIR-V work, but creating the exact pipeline at first use still runs the driver's
 * compiler on the render thread (16-50 ms on a desktop driver). The router takes that off the render thread:
 *
 *   - at load, before the first frame, it creates the fallback pipelines on worker threads: with
 *     VK_EXT_extended_dynamic_state 1/2/3 and VK_EXT_vertex_input_dynamic_state one pipeline per (fallback
 *     family, attachment signature) that serves any host state with that signature; elsewhere the bundle's
 *     per-host-state fallback pipelines;
 *   - at a draw it answers, in this order: the caller's binding is still current (two scalar compares) ->
 *     the exact pipeline is ready -> a fallback pipeline is ready (the caller uploads the guest's packet) ->
 *     uncovered (the caller's own path, counted);
 *   - exact pipelines are created on worker threads: the work a draw is waiting for (it is on a fallback now)
 *     on a required lane ahead of speculative prewarm in the bundle's captured first-use order; finished
 *     pipelines are adopted at the start of a frame under a budget (count and CPU time), each by its exact
 *     pipeline entry and generation, so a completion invalidates only the bindings of its own entry.
 *
 * Use: include this header (it includes shaderbake_vulkan.h, which includes vulkan/vulkan.h and shaderbake.h);
 * in exactly one translation unit define SHADERBAKE_IMPLEMENTATION before including it (that also compiles the
 * implementations of the headers it includes, and of any other shaderbake header included there, e.g. the
 * guest's). C99 or C++; POSIX threads or Win32. Under a strict C99 compiler (-std=c99) define
 * _POSIX_C_SOURCE 200809L before the first include of the implementation's translation unit, as POSIX asks
 * for clock_gettime and threads. Vulkan functions are loaded through the
 * vkGetInstanceProcAddr the caller passes, so the router works with a loader linked statically, dynamically or
 * through volk.
 *
 * Contracts:
 *  - Render thread: sbk_router_load, sbk_router_begin_frame, sbk_router_resolve, sbk_router_cmd_bind,
 *    sbk_router_stats and sbk_router_destroy are called from one thread at a time (the thread that draws).
 *    sbk_router_resolve and sbk_router_probe allocate nothing and take no lock: a draw whose binding is
 *    current costs two compares; a full resolution hashes the pipeline key and probes the bundle (O(1)). A miss
 *    that queues work pushes it on a lock-free queue and calls the executor's submit once.
 *  - Workers: the router hands the executor functions to run; they read the bundle (immutable), create shader
 *    modules and pipelines, and push the result on a lock-free queue. They never touch render-thread state.
 *  - Every job input is owned by the router or is the bundle's: nothing the caller passes to a call is read
 *    after that call returns.
 *  - Queue full never means "compile now": the state keeps its fallback and is retried a few frames later.
 *    A failed creation is retried by frame with a doubling back-off and ends "failed permanently" after
 *    max_attempts. An executor that never runs a job starves only promotion: draws keep their fallback.
 *  - Bad bundle data gives SBK_ERROR_CORRUPT at create or a counted miss at a draw, never a crash.
 */
#include "shaderbake_vulkan.h" /* outside the guard, as in shaderbake_vulkan.h: a later include with
                                  SHADERBAKE_IMPLEMENTATION defined compiles the implementations it needs */

#ifndef SHADERBAKE_ROUTER_H
#define SHADERBAKE_ROUTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- executor ---------------------------------------------------------------------------------------- */

/* A unit of work the router wants run on some thread other than the render thread. */
typedef void (*sbk_job_fn)(void* job);

/* Runs fn(job) once, soon, on one of the caller's threads. Returns 0 when it accepted the job (it must then
 * run it exactly once, also while the router is being destroyed), non-zero to refuse it (the router offers it
 * again at a later frame). Called from the render thread. */
typedef int (*sbk_executor_submit_fn)(void* executor, sbk_job_fn fn, void* job);

/* A default executor for renderers without a thread pool: `threads` threads and a lock-free queue of
 * `capacity` jobs (rounded up to a power of two; 0 = 4096). Submitting takes no lock unless a thread sleeps
 * (then one mutex + condition signal wakes it). */
typedef struct sbk_thread_pool sbk_thread_pool;
SBK_API sbk_result sbk_thread_pool_create(uint32_t threads, uint32_t capacity, sbk_thread_pool** out);
/* An sbk_executor_submit_fn: pass the pool as `executor`. Refuses (returns 1) when the queue is full. */
SBK_API int sbk_thread_pool_submit(void* pool, sbk_job_fn fn, void* job);
/* Runs every job still queued, then joins the threads and frees the pool. */
SBK_API void sbk_thread_pool_destroy(sbk_thread_pool* pool);

/* ---- device support ---------------------------------------------------------------------------------- */

/* What the dynamic-state fallback pipelines need: the four extensions, the EDS3 features polygon mode,
 * colour blend enable, colour blend equation and colour write mask. */
typedef struct sbk_router_device_support {
  uint32_t extended_dynamic_state;   /* VK_EXT_extended_dynamic_state + its feature */
  uint32_t extended_dynamic_state2;  /* VK_EXT_extended_dynamic_state2 + extendedDynamicState2 */
  uint32_t extended_dynamic_state3;  /* VK_EXT_extended_dynamic_state3 + the four features above */
  uint32_t vertex_input_dynamic_state;
  uint32_t unrestricted_topology;    /* dynamicPrimitiveTopologyUnrestricted: else triangle topologies only */
  uint32_t complete;                 /* all four: the dynamic-state fallback can be used */
} sbk_router_device_support;

/* Queries a physical device. Allocates while it runs (extension list); meant for device creation time. */
SBK_API void sbk_router_query_support(VkInstance instance, VkPhysicalDevice physical_device,
                                      PFN_vkGetInstanceProcAddr get_instance_proc_addr,
                                      sbk_router_device_support* out);

/* The feature structs and extension names to enable on the VkDevice for the dynamic-state fallback. Chain
 * `&chain->extended_dynamic_state` into VkDeviceCreateInfo.pNext (its last struct's pNext is `next`) and add
 * chain->extensions[0 .. extension_count) to the enabled extensions. Nothing is enabled unless
 * support->complete. */
typedef struct sbk_router_feature_chain {
  VkPhysicalDeviceExtendedDynamicStateFeaturesEXT extended_dynamic_state;
  VkPhysicalDeviceExtendedDynamicState2FeaturesEXT extended_dynamic_state2;
  VkPhysicalDeviceExtendedDynamicState3FeaturesEXT extended_dynamic_state3;
  VkPhysicalDeviceVertexInputDynamicStateFeaturesEXT vertex_input_dynamic_state;
  const char* extensions[4];
  uint32_t extension_count;
} sbk_router_feature_chain;
/* Returns the head of the chain (or `next` when nothing is enabled). */
SBK_API void* sbk_router_fill_features(const sbk_router_device_support* support, void* next,
                                       sbk_router_feature_chain* chain);

/* ---- router ------------------------------------------------------------------------------------------ */

typedef struct sbk_router sbk_router;

typedef struct sbk_router_desc {
  VkInstance instance;
  VkPhysicalDevice physical_device;
  VkDevice device;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* required */
  const sbk_bundle* bundle;        /* open (sbk_bundle_prepare_dictionary done); outlives the router */
  VkPipelineCache pipeline_cache;  /* every pipeline is created through it; VK_NULL_HANDLE for none */
  sbk_executor_submit_fn submit;   /* NULL: the router runs its own sbk_thread_pool of worker_count threads */
  void* executor;
  uint32_t worker_count;           /* own pool only; 0 = 2 */
  /* Non-zero: the caller enabled on `device` what sbk_router_fill_features asked for (support.complete), and
   * the router serves fallback draws through the bundle's dynamic-state fallback recipes. Zero, or a bundle
   * without those recipes (no DYNAMIC_FALLBACKS section): the per-host-state fallback pipelines of the bundle. */
  uint32_t dynamic_state;
  uint32_t unrestricted_topology;  /* dynamicPrimitiveTopologyUnrestricted (sbk_router_query_support) */
  uint32_t prewarm;                /* non-zero: create exact pipelines speculatively in the bundle's prewarm order */
  /* Non-zero: a draw whose exact pipeline is in the bundle but not ready, and that no fallback serves, gets it
   * created on the calling thread (counted as a foreground creation) instead of the uncovered route. */
  uint32_t foreground_creation;
  uint32_t queue_capacity;         /* jobs queued or finished and not yet adopted, at most; 0 = 4096 */
  uint32_t adopt_max_per_frame;    /* 0 = 64 */
  uint32_t adopt_budget_us;        /* CPU time for adoption per frame; 0 = 500 */
  uint32_t max_attempts;           /* creations of one pipeline before it is failed permanently; 0 = 3 */
  uint32_t retry_frames;           /* first back-off, in frames; doubles per attempt; 0 = 8 */
  /* Optional: called instead of vkCreateGraphicsPipelines (a renderer's wrapper; tests inject failures). */
  PFN_vkCreateGraphicsPipelines create_graphics_pipelines;
} sbk_router_desc;

/* Creates the router: loads its Vulkan functions, creates a VkDescriptorSetLayout and VkPipelineLayout per
 * bundle layout, the vertex-defaults buffer of the dynamic-state fallback, its queues and per-entry state.
 * Creates no pipeline (sbk_router_load does). Errors: SBK_ERROR_INVALID_STATE (a required field is missing),
 * SBK_ERROR_CORRUPT (a layout or recipe of the bundle is damaged), SBK_ERROR_OUT_OF_MEMORY, SBK_ERROR_DEVICE
 * (*vk_result, if not NULL, says which VkResult). */
SBK_API sbk_result sbk_router_create(const sbk_router_desc* desc, sbk_router** out, VkResult* vk_result);

/* Creates every fallback pipeline on the workers and on the calling thread (so it finishes also with an
 * executor that runs nothing), waits for them, and then queues the prewarm. A fallback pipeline that fails
 * is counted (stats.load_failures) and leaves its states uncovered. Call once, before the first frame. */
SBK_API sbk_result sbk_router_load(sbk_router* router);

/* Starts frame `frame` (increasing): adopts finished pipelines within the budget, requeues states whose
 * back-off has run out, offers refused jobs to the executor again, tops up the prewarm. */
SBK_API void sbk_router_begin_frame(sbk_router* router, uint64_t frame);

/* What a draw needs: the guest's exact key and, for a program its guest's admission accepts, its fallback
 * family key (NULL otherwise: the fallback route is never taken), and the host state. All are read during the
 * call only. */
typedef struct sbk_router_draw {
  const uint8_t* exact_key;
  uint32_t exact_key_size;
  const uint8_t* family_key;
  uint32_t family_key_size;
  const sbk_host_state* host;
} sbk_router_draw;

/* Routes a draw can take. */
typedef enum sbk_router_route {
  SBK_ROUTED_UNCOVERED = 0,        /* nothing ready: the caller's own path */
  SBK_ROUTED_EXACT = 1,            /* the exact pipeline */
  SBK_ROUTED_FALLBACK = 2,         /* the bundle's fallback pipeline of this host state (+ the guest's packet) */
  SBK_ROUTED_DYNAMIC_FALLBACK = 3, /* the dynamic-state fallback pipeline (+ packet; sbk_router_cmd_bind sets the state) */
  SBK_ROUTED_COUNT = 4
} sbk_router_route;

/* The caller's memory of a (program, host state) pair: zero-initialise it, keep it with the pair, pass it to
 * every draw of the pair. The public fields are the answer; the rest is the router's. */
typedef struct sbk_router_binding {
  VkPipeline pipeline;           /* VK_NULL_HANDLE when uncovered */
  VkPipelineLayout layout;       /* the router's layout for the pipeline (compatible descriptor sets: sbk_router_layout) */
  uint32_t route;                /* sbk_router_route */
  uint32_t layout_index;         /* the bundle's layout index */
  uint32_t defaults_binding;     /* dynamic route: vertex binding that sbk_router_cmd_bind binds the defaults to */
  uint32_t epoch, entry, generation; /* private */
} sbk_router_binding;

/* Promotion state of an exact pipeline entry. */
typedef enum sbk_promotion_state {
  SBK_PROMOTION_ABSENT = 0,          /* nothing asked for yet (or no exact pipeline in the bundle) */
  SBK_PROMOTION_PENDING = 1,         /* queued or being created */
  SBK_PROMOTION_READY = 2,
  SBK_PROMOTION_QUEUE_BACKOFF = 3,   /* the queue was full: asked again after a few frames */
  SBK_PROMOTION_FAILED_BACKOFF = 4,  /* a creation failed: retried after a back-off */
  SBK_PROMOTION_FAILED_PERMANENTLY = 5
} sbk_promotion_state;

/* True when `binding` is still the answer for its pair (no exact pipeline of its entry was adopted since). */
SBK_API int sbk_router_current(const sbk_router* router, const sbk_router_binding* binding);

/* Routes a draw. A current binding is left as it is. Otherwise the binding gets the best ready route; an exact
 * pipeline in the bundle that is not ready is queued on the required lane (once; back-off and failure states
 * are retried by frame, not by draw). SBK_OK whatever the route (uncovered is a normal answer);
 * SBK_ERROR_INVALID_STATE for a host state the encoder refuses (the binding is then uncovered). */
SBK_API sbk_result sbk_router_resolve(sbk_router* router, const sbk_router_draw* draw, sbk_router_binding* binding);

/* The answer sbk_router_resolve would give now, without queuing anything or changing any count, state or
 * allocation. *promotion (if not NULL) gets the exact entry's sbk_promotion_state. */
SBK_API sbk_result sbk_router_probe(const sbk_router* router, const sbk_router_draw* draw, sbk_router_binding* out,
                                    uint32_t* promotion);

/* Binds the binding's pipeline. For the dynamic route it also records every piece of state the dynamic-state
 * pipeline leaves dynamic from `host` (the draw's host state): cull mode, front face, topology, depth and
 * stencil state, polygon mode, blend enables/equations/write masks, the vertex input (the host's bindings and
 * attributes, and every location the guest reads that the host does not supply at the defaults binding), and
 * binds the defaults buffer there. Values the host declares dynamic (line width, depth bias, blend constants,
 * depth bounds, stencil masks and reference) stay the caller's to set, as with a static pipeline. */
SBK_API void sbk_router_cmd_bind(const sbk_router* router, VkCommandBuffer cmd, const sbk_router_binding* binding,
                                 const sbk_host_state* host);

/* The router's descriptor set layout and pipeline layout of bundle layout `layout_index`. */
SBK_API sbk_result sbk_router_layout(const sbk_router* router, uint32_t layout_index, VkPipelineLayout* pipeline_layout,
                                     VkDescriptorSetLayout* set_layout);

typedef struct sbk_router_stats {
  uint64_t current;                          /* resolves answered by a current binding */
  uint64_t resolves[SBK_ROUTED_COUNT];       /* full resolutions, by route */
  uint64_t first_uses[SBK_ROUTED_COUNT];     /* of them: bindings resolved for the first time */
  uint64_t ready_at_demand;                  /* exact entries whose pipeline was ready when first drawn */
  uint64_t not_ready_at_demand;
  uint64_t queued_required, queued_speculative;
  uint64_t queue_full;                       /* requests that met a full queue (state kept its fallback) */
  uint64_t executor_refused;                 /* submits the executor refused (offered again next frame) */
  uint64_t adopted;                          /* exact pipelines promoted */
  uint64_t failed_attempts, failed_permanently;
  uint64_t duplicates;                       /* finished pipelines nobody needed any more (destroyed) */
  uint64_t foreground_creations;             /* pipelines created on the render thread */
  uint64_t foreground_ns;
  uint64_t worker_creations;                 /* pipelines created by workers (load included) */
  uint64_t worker_cpu_ns;                    /* CPU time of worker jobs */
  uint64_t load_pipelines, load_failures;
  uint64_t corrupt;                          /* probes that met damaged bundle data (a counted miss) */
  uint32_t required_depth, speculative_depth; /* jobs queued now */
  uint32_t outstanding;                      /* jobs queued, running or finished and not yet adopted */
  uint32_t refused_pending;                  /* jobs waiting to be offered to the executor again */
  uint32_t fallback_pipelines;               /* ready at load: dynamic-state or per-host-state */
  uint32_t dynamic_state;                    /* the dynamic-state fallback is in use */
} sbk_router_stats;
SBK_API void sbk_router_stats_get(const sbk_router* router, sbk_router_stats* out);

/* One promotion: an exact pipeline adopted after a draw had waited for it on a fallback. */
typedef struct sbk_router_promotion {
  uint32_t entry;          /* the exact pipeline entry (bundle index) */
  uint32_t reserved;
  uint64_t demand_frame;   /* frame of the first draw that took a fallback for it */
  uint64_t adopted_frame;
  uint64_t latency_ns;     /* first fallback draw -> adopted */
} sbk_router_promotion;
/* The promotions so far, in adoption order (valid until the next render-thread call). */
SBK_API const sbk_router_promotion* sbk_router_promotions(const sbk_router* router, uint32_t* count);

/* Stops queuing, waits until every job handed to the executor has returned (a job that runs after this point
 * returns at once), destroys every pipeline, layout and buffer it created and frees the router. */
SBK_API void sbk_router_destroy(sbk_router* router);

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_ROUTER_H */

/* ===================================================================================================== */
#ifdef SHADERBAKE_IMPLEMENTATION
#ifndef SHADERBAKE_ROUTER_IMPLEMENTATION_DONE
#define SHADERBAKE_ROUTER_IMPLEMENTATION_DONE

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every allocation of the router and the pool goes through these (define both before the implementation to
 * use your own). None happens in sbk_router_resolve, sbk_router_probe, sbk_router_current or
 * sbk_router_cmd_bind. */
#ifndef SBK_ROUTER_CALLOC
#define SBK_ROUTER_CALLOC(count, size) calloc((count), (size))
#define SBK_ROUTER_FREE(p) free(p)
#endif

/* ---- atomics (GCC/Clang builtins; Interlocked on MSVC) ---- */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static uint64_t sbk__load_acquire(const uint64_t* p) { uint64_t v = *(const volatile uint64_t*)p; _ReadWriteBarrier(); return v; }
static void sbk__store_release(uint64_t* p, uint64_t v) { _ReadWriteBarrier(); *(volatile uint64_t*)p = v; }
static int sbk__cas(uint64_t* p, uint64_t* expected, uint64_t desired) {
  const uint64_t seen = (uint64_t)_InterlockedCompareExchange64((volatile __int64*)p, (__int64)desired, (__int64)*expected);
  if (seen == *expected) return 1;
  *expected = seen;
  return 0;
}
static uint64_t sbk__fetch_add(uint64_t* p, uint64_t v) { return (uint64_t)_InterlockedExchangeAdd64((volatile __int64*)p, (__int64)v); }
static uint64_t sbk__load_seq(const uint64_t* p) { return (uint64_t)_InterlockedCompareExchange64((volatile __int64*)p, 0, 0); }
static void sbk__fence(void) { MemoryBarrier(); }
#else
static uint64_t sbk__load_acquire(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void sbk__store_release(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static int sbk__cas(uint64_t* p, uint64_t* expected, uint64_t desired) {
  return __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static uint64_t sbk__fetch_add(uint64_t* p, uint64_t v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static uint64_t sbk__load_seq(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static void sbk__fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif

/* ---- clocks ---- */
static uint64_t sbk__now_ns(void) {
#if defined(_WIN32)
  LARGE_INTEGER c, f;
  QueryPerformanceCounter(&c);
  QueryPerformanceFrequency(&f);
  return (uint64_t)((double)c.QuadPart * 1e9 / (double)f.QuadPart);
#else
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}
static uint64_t sbk__thread_cpu_ns(void) {
#if defined(_WIN32)
  FILETIME c, e, k, u;
  if (!GetThreadTimes(GetCurrentThread(), &c, &e, &k, &u)) return 0;
  return ((((uint64_t)k.dwHighDateTime << 32) | k.dwLowDateTime) + (((uint64_t)u.dwHighDateTime << 32) | u.dwLowDateTime)) * 100u;
#else
  struct timespec t;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
#endif
}
static void sbk__yield(void) {
#if defined(_WIN32)
  Sleep(0);
#else
  sched_yield();
#endif
}

/* ---- bounded lock-free MPMC ring (D. Vyukov's design): cells carry a sequence number; a producer owns a
 * cell when its sequence equals the position, a consumer when it equals position + 1. ---- */
typedef struct sbk__cell {
  uint64_t sequence;
  uint64_t value[3];
} sbk__cell;

typedef struct sbk__ring {
  sbk__cell* cells;
  uint64_t mask;
  uint64_t head_pad[7];
  uint64_t head; /* next position to write */
  uint64_t tail_pad[7];
  uint64_t tail; /* next position to read */
  uint64_t end_pad[7];
} sbk__ring;

static uint64_t sbk__pow2_at_least(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

static int sbk__ring_init(sbk__ring* ring, uint64_t capacity) {
  uint64_t i;
  memset(ring, 0, sizeof *ring);
  capacity = sbk__pow2_at_least(capacity < 2 ? 2 : capacity);
  ring->cells = (sbk__cell*)SBK_ROUTER_CALLOC((size_t)capacity, sizeof(sbk__cell));
  if (!ring->cells) return 0;
  ring->mask = capacity - 1;
  for (i = 0; i < capacity; ++i) ring->cells[i].sequence = i;
  return 1;
}

static void sbk__ring_free(sbk__ring* ring) {
  SBK_ROUTER_FREE(ring->cells);
  ring->cells = NULL;
}

static int sbk__ring_push(sbk__ring* ring, const uint64_t value[3]) {
  uint64_t pos = sbk__load_acquire(&ring->head);
  sbk__cell* cell;
  for (;;) {
    int64_t diff;
    cell = &ring->cells[pos & ring->mask];
    diff = (int64_t)(sbk__load_acquire(&cell->sequence) - pos);
    if (diff == 0) {
      if (sbk__cas(&ring->head, &pos, pos + 1)) break;
    } else if (diff < 0) {
      return 0; /* full */
    } else {
      pos = sbk__load_acquire(&ring->head);
    }
  }
  memcpy(cell->value, value, sizeof cell->value);
  sbk__store_release(&cell->sequence, pos + 1);
  return 1;
}

static int sbk__ring_pop(sbk__ring* ring, uint64_t value[3]) {
  uint64_t pos = sbk__load_acquire(&ring->tail);
  sbk__cell* cell;
  for (;;) {
    int64_t diff;
    cell = &ring->cells[pos & ring->mask];
    diff = (int64_t)(sbk__load_acquire(&cell->sequence) - (pos + 1));
    if (diff == 0) {
      if (sbk__cas(&ring->tail, &pos, pos + 1)) break;
    } else if (diff < 0) {
      return 0; /* empty */
    } else {
      pos = sbk__load_acquire(&ring->tail);
    }
  }
  memcpy(value, cell->value, sizeof cell->value);
  sbk__store_release(&cell->sequence, pos + ring->mask + 1);
  return 1;
}

static uint32_t sbk__ring_depth(const sbk__ring* ring) {
  const uint64_t head = sbk__load_acquire(&ring->head), tail = sbk__load_acquire(&ring->tail);
  return head > tail ? (uint32_t)(head - tail) : 0u;
}

/* ---- default thread pool ---- */
struct sbk_thread_pool {
  sbk__ring jobs; /* value[0] = fn, value[1] = job */
  uint64_t sleeping;
  uint64_t stopping;
  uint32_t thread_count;
#if defined(_WIN32)
  SRWLOCK lock;
  CONDITION_VARIABLE wake;
  HANDLE* threads;
#else
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t* threads;
#endif
};

static int sbk__pool_run_one(sbk_thread_pool* pool) {
  uint64_t v[3];
  sbk_job_fn fn;
  if (!sbk__ring_pop(&pool->jobs, v)) return 0;
  memcpy(&fn, &v[0], sizeof fn);
  fn((void*)(uintptr_t)v[1]);
  return 1;
}

/* A worker sleeps only after announcing it (sleeping += 1) and finding the queue empty under the lock; a
 * submitter pushes first and then looks at `sleeping`: with both sequentially consistent, one of them sees
 * the other, so no job waits for a thread that sleeps. */
#if defined(_WIN32)
static DWORD WINAPI sbk__pool_thread(LPVOID arg)
#else
static void* sbk__pool_thread(void* arg)
#endif
{
  sbk_thread_pool* pool = (sbk_thread_pool*)arg;
  for (;;) {
    if (sbk__pool_run_one(pool)) continue;
#if defined(_WIN32)
    AcquireSRWLockExclusive(&pool->lock);
#else
    pthread_mutex_lock(&pool->lock);
#endif
    sbk__fetch_add(&pool->sleeping, 1);
    sbk__fence(); /* the announcement before the look at the queue (see above) */
    while (sbk__ring_depth(&pool->jobs) == 0 && !sbk__load_seq(&pool->stopping)) {
#if defined(_WIN32)
      SleepConditionVariableSRW(&pool->wake, &pool->lock, INFINITE, 0);
#else
      pthread_cond_wait(&pool->wake, &pool->lock);
#endif
    }
    sbk__fetch_add(&pool->sleeping, (uint64_t)-1);
#if defined(_WIN32)
    ReleaseSRWLockExclusive(&pool->lock);
#else
    pthread_mutex_unlock(&pool->lock);
#endif
    if (sbk__load_seq(&pool->stopping) && sbk__ring_depth(&pool->jobs) == 0) break;
  }
#if defined(_WIN32)
  return 0;
#else
  return NULL;
#endif
}

static void sbk__pool_wake_all(sbk_thread_pool* pool) {
#if defined(_WIN32)
  AcquireSRWLockExclusive(&pool->lock);
  WakeAllConditionVariable(&pool->wake);
  ReleaseSRWLockExclusive(&pool->lock);
#else
  pthread_mutex_lock(&pool->lock);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
#endif
}

SBK_API sbk_result sbk_thread_pool_create(uint32_t threads, uint32_t capacity, sbk_thread_pool** out) {
  sbk_thread_pool* pool;
  uint32_t i;
  SBK_ASSERT(out != NULL);
  *out = NULL;
  if (threads == 0) threads = 1;
  pool = (sbk_thread_pool*)SBK_ROUTER_CALLOC(1, sizeof *pool);
  if (!pool) return SBK_ERROR_OUT_OF_MEMORY;
  if (!sbk__ring_init(&pool->jobs, capacity ? capacity : 4096u)) {
    SBK_ROUTER_FREE(pool);
    return SBK_ERROR_OUT_OF_MEMORY;
  }
#if defined(_WIN32)
  InitializeSRWLock(&pool->lock);
  InitializeConditionVariable(&pool->wake);
  pool->threads = (HANDLE*)SBK_ROUTER_CALLOC(threads, sizeof(HANDLE));
#else
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pool->threads = (pthread_t*)SBK_ROUTER_CALLOC(threads, sizeof(pthread_t));
#endif
  if (!pool->threads) {
    sbk_thread_pool_destroy(pool);
    return SBK_ERROR_OUT_OF_MEMORY;
  }
  for (i = 0; i < threads; ++i) {
#if defined(_WIN32)
    pool->threads[i] = CreateThread(NULL, 0, sbk__pool_thread, pool, 0, NULL);
    if (!pool->threads[i]) break;
#else
    if (pthread_create(&pool->threads[i], NULL, sbk__pool_thread, pool) != 0) break;
#endif
    pool->thread_count = i + 1;
  }
  if (pool->thread_count == 0) {
    sbk_thread_pool_destroy(pool);
    return SBK_ERROR_OUT_OF_MEMORY;
  }
  *out = pool;
  return SBK_OK;
}

SBK_API int sbk_thread_pool_submit(void* executor, sbk_job_fn fn, void* job) {
  sbk_thread_pool* pool = (sbk_thread_pool*)executor;
  uint64_t v[3];
  v[0] = 0;
  v[1] = (uint64_t)(uintptr_t)job;
  v[2] = 0;
  memcpy(&v[0], &fn, sizeof fn);
  if (!sbk__ring_push(&pool->jobs, v)) return 1;
  sbk__fence(); /* the push before the look at `sleeping` */
  if (sbk__load_seq(&pool->sleeping) != 0) {
#if defined(_WIN32)
    AcquireSRWLockExclusive(&pool->lock);
    WakeConditionVariable(&pool->wake);
    ReleaseSRWLockExclusive(&pool->lock);
#else
    pthread_mutex_lock(&pool->lock);
    pthread_cond_signal(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
#endif
  }
  return 0;
}

SBK_API void sbk_thread_pool_destroy(sbk_thread_pool* pool) {
  uint32_t i;
  if (!pool) return;
  sbk__fetch_add(&pool->stopping, 1);
  if (pool->threads) {
    sbk__pool_wake_all(pool);
    for (i = 0; i < pool->thread_count; ++i) {
#if defined(_WIN32)
      WaitForSingleObject(pool->threads[i], INFINITE);
      CloseHandle(pool->threads[i]);
#else
      pthread_join(pool->threads[i], NULL);
#endif
    }
  }
  while (sbk__pool_run_one(pool)) {
  }
#if !defined(_WIN32)
  pthread_mutex_destroy(&pool->lock);
  pthread_cond_destroy(&pool->wake);
#endif
  SBK_ROUTER_FREE(pool->threads);
  sbk__ring_free(&pool->jobs);
  SBK_ROUTER_FREE(pool);
}

/* ---- device support ---- */
SBK_API void sbk_router_query_support(VkInstance instance, VkPhysicalDevice physical_device,
                                      PFN_vkGetInstanceProcAddr gipa, sbk_router_device_support* out) {
  PFN_vkEnumerateDeviceExtensionProperties enumerate;
  PFN_vkGetPhysicalDeviceFeatures2 features2;
  PFN_vkGetPhysicalDeviceProperties2 properties2;
  VkExtensionProperties* list = NULL;
  uint32_t count = 0, i, has[4] = {0, 0, 0, 0};
  static const char* const kNames[4] = {"VK_EXT_extended_dynamic_state", "VK_EXT_extended_dynamic_state2",
                                        "VK_EXT_extended_dynamic_state3", "VK_EXT_vertex_input_dynamic_state"};
  SBK_ASSERT(out != NULL && gipa != NULL);
  memset(out, 0, sizeof *out);
  enumerate = (PFN_vkEnumerateDeviceExtensionProperties)gipa(instance, "vkEnumerateDeviceExtensionProperties");
  features2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(instance, "vkGetPhysicalDeviceFeatures2");
  properties2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(instance, "vkGetPhysicalDeviceProperties2");
  if (!enumerate || !features2 || !properties2) return;
  if (enumerate(physical_device, NULL, &count, NULL) != VK_SUCCESS || count == 0) return;
  list = (VkExtensionProperties*)SBK_ROUTER_CALLOC(count, sizeof *list);
  if (!list) return;
  if (enumerate(physical_device, NULL, &count, list) == VK_SUCCESS) {
    for (i = 0; i < count; ++i) {
      uint32_t k;
      for (k = 0; k < 4; ++k)
        if (strcmp(list[i].extensionName, kNames[k]) == 0) has[k] = 1;
    }
  }
  SBK_ROUTER_FREE(list);
  {
    VkPhysicalDeviceExtendedDynamicStateFeaturesEXT eds1;
    VkPhysicalDeviceExtendedDynamicState2FeaturesEXT eds2;
    VkPhysicalDeviceExtendedDynamicState3FeaturesEXT eds3;
    VkPhysicalDeviceVertexInputDynamicStateFeaturesEXT vids;
    VkPhysicalDeviceFeatures2 features;
    memset(&eds1, 0, sizeof eds1);
    memset(&eds2, 0, sizeof eds2);
    memset(&eds3, 0, sizeof eds3);
    memset(&vids, 0, sizeof vids);
    memset(&features, 0, sizeof features);
    eds1.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_FEATURES_EXT;
    eds2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT;
    eds3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT;
    vids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_INPUT_DYNAMIC_STATE_FEATURES_EXT;
    features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    /* Only structs of extensions the device has may be chained. */
    {
      void* next = NULL;
      if (has[3]) { vids.pNext = next; next = &vids; }
      if (has[2]) { eds3.pNext = next; next = &eds3; }
      if (has[1]) { eds2.pNext = next; next = &eds2; }
      if (has[0]) { eds1.pNext = next; next = &eds1; }
      features.pNext = next;
    }
    features2(physical_device, &features);
    out->extended_dynamic_state = has[0] && eds1.extendedDynamicState;
    out->extended_dynamic_state2 = has[1] && eds2.extendedDynamicState2;
    out->extended_dynamic_state3 = has[2] && eds3.extendedDynamicState3PolygonMode &&
                                   eds3.extendedDynamicState3ColorBlendEnable &&
                                   eds3.extendedDynamicState3ColorBlendEquation &&
                                   eds3.extendedDynamicState3ColorWriteMask;
    out->vertex_input_dynamic_state = has[3] && vids.vertexInputDynamicState;
  }
  if (has[2]) {
    VkPhysicalDeviceExtendedDynamicState3PropertiesEXT eds3p;
    VkPhysicalDeviceProperties2 properties;
    memset(&eds3p, 0, sizeof eds3p);
    memset(&properties, 0, sizeof properties);
    eds3p.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_PROPERTIES_EXT;
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &eds3p;
    properties2(physical_device, &properties);
    out->unrestricted_topology = eds3p.dynamicPrimitiveTopologyUnrestricted ? 1u : 0u;
  }
  out->complete = out->extended_dynamic_state && out->extended_dynamic_state2 && out->extended_dynamic_state3 &&
                  out->vertex_input_dynamic_state;
}

SBK_API void* sbk_router_fill_features(const sbk_router_device_support* support, void* next,
                                       sbk_router_feature_chain* chain) {
  SBK_ASSERT(support != NULL && chain != NULL);
  memset(chain, 0, sizeof *chain);
  if (!support->complete) return next;
  chain->extended_dynamic_state.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_FEATURES_EXT;
  chain->extended_dynamic_state.extendedDynamicState = VK_TRUE;
  chain->extended_dynamic_state.pNext = &chain->extended_dynamic_state2;
  chain->extended_dynamic_state2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_2_FEATURES_EXT;
  chain->extended_dynamic_state2.extendedDynamicState2 = VK_TRUE;
  chain->extended_dynamic_state2.pNext = &chain->extended_dynamic_state3;
  chain->extended_dynamic_state3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT;
  chain->extended_dynamic_state3.extendedDynamicState3PolygonMode = VK_TRUE;
  chain->extended_dynamic_state3.extendedDynamicState3ColorBlendEnable = VK_TRUE;
  chain->extended_dynamic_state3.extendedDynamicState3ColorBlendEquation = VK_TRUE;
  chain->extended_dynamic_state3.extendedDynamicState3ColorWriteMask = VK_TRUE;
  chain->extended_dynamic_state3.pNext = &chain->vertex_input_dynamic_state;
  chain->vertex_input_dynamic_state.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_INPUT_DYNAMIC_STATE_FEATURES_EXT;
  chain->vertex_input_dynamic_state.vertexInputDynamicState = VK_TRUE;
  chain->vertex_input_dynamic_state.pNext = next;
  chain->extensions[0] = "VK_EXT_extended_dynamic_state";
  chain->extensions[1] = "VK_EXT_extended_dynamic_state2";
  chain->extensions[2] = "VK_EXT_extended_dynamic_state3";
  chain->extensions[3] = "VK_EXT_vertex_input_dynamic_state";
  chain->extension_count = 4;
  return &chain->extended_dynamic_state;
}

/* ---- router ---- */

typedef struct sbk__router_vk {
  PFN_vkGetDeviceProcAddr get_device_proc_addr;
  PFN_vkCreateGraphicsPipelines create_graphics_pipelines;
  PFN_vkDestroyPipeline destroy_pipeline;
  PFN_vkCreateShaderModule create_shader_module;
  PFN_vkDestroyShaderModule destroy_shader_module;
  PFN_vkCreateDescriptorSetLayout create_set_layout;
  PFN_vkDestroyDescriptorSetLayout destroy_set_layout;
  PFN_vkCreatePipelineLayout create_pipeline_layout;
  PFN_vkDestroyPipelineLayout destroy_pipeline_layout;
  PFN_vkCreateBuffer create_buffer;
  PFN_vkDestroyBuffer destroy_buffer;
  PFN_vkGetBufferMemoryRequirements buffer_requirements;
  PFN_vkAllocateMemory allocate_memory;
  PFN_vkFreeMemory free_memory;
  PFN_vkBindBufferMemory bind_buffer_memory;
  PFN_vkMapMemory map_memory;
  PFN_vkUnmapMemory unmap_memory;
  PFN_vkGetPhysicalDeviceMemoryProperties memory_properties;
  PFN_vkGetPhysicalDeviceProperties device_properties;
  PFN_vkCmdBindPipeline cmd_bind_pipeline;
  PFN_vkCmdBindVertexBuffers cmd_bind_vertex_buffers;
  PFN_vkCmdSetLineWidth cmd_set_line_width;
  PFN_vkCmdSetBlendConstants cmd_set_blend_constants;
  PFN_vkCmdSetStencilCompareMask cmd_set_stencil_compare_mask;
  PFN_vkCmdSetStencilWriteMask cmd_set_stencil_write_mask;
  PFN_vkCmdSetStencilReference cmd_set_stencil_reference;
  PFN_vkCmdSetDepthBias cmd_set_depth_bias;
  PFN_vkCmdSetDepthBounds cmd_set_depth_bounds;
  /* dynamic-state fallback */
  PFN_vkCmdSetCullModeEXT cmd_set_cull_mode;
  PFN_vkCmdSetFrontFaceEXT cmd_set_front_face;
  PFN_vkCmdSetPrimitiveTopologyEXT cmd_set_topology;
  PFN_vkCmdSetDepthTestEnableEXT cmd_set_depth_test;
  PFN_vkCmdSetDepthWriteEnableEXT cmd_set_depth_write;
  PFN_vkCmdSetDepthCompareOpEXT cmd_set_depth_compare;
  PFN_vkCmdSetDepthBoundsTestEnableEXT cmd_set_depth_bounds_test;
  PFN_vkCmdSetStencilTestEnableEXT cmd_set_stencil_test;
  PFN_vkCmdSetStencilOpEXT cmd_set_stencil_op;
  PFN_vkCmdSetRasterizerDiscardEnableEXT cmd_set_rasterizer_discard;
  PFN_vkCmdSetDepthBiasEnableEXT cmd_set_depth_bias_enable;
  PFN_vkCmdSetPrimitiveRestartEnableEXT cmd_set_primitive_restart;
  PFN_vkCmdSetPolygonModeEXT cmd_set_polygon_mode;
  PFN_vkCmdSetColorBlendEnableEXT cmd_set_blend_enable;
  PFN_vkCmdSetColorBlendEquationEXT cmd_set_blend_equation;
  PFN_vkCmdSetColorWriteMaskEXT cmd_set_write_mask;
  PFN_vkCmdSetVertexInputEXT cmd_set_vertex_input;
} sbk__router_vk;

/* Render-thread state of a pipeline entry of the bundle (exact entries are promoted; fallback entries hold the
 * pipeline load created). */
typedef struct sbk__entry_state {
  VkPipeline pipeline;
  uint64_t demand_frame;
  uint64_t demand_ns;    /* first fallback draw while not ready; 0 = none */
  uint64_t retry_frame;
  uint32_t generation;   /* bumped when the entry's pipeline is adopted */
  uint8_t promotion;     /* sbk_promotion_state */
  uint8_t attempts;
  uint8_t required;      /* a draw waits for it: queued (or retried) on the required lane */
  uint8_t demanded;      /* a draw has asked for it */
  uint8_t in_retry_list;
  uint8_t pad[3];
} sbk__entry_state;

/* Job words: kind in bits 62-63, index in bits 0-31. */
enum { SBK__JOB_EXACT = 1, SBK__JOB_FALLBACK = 2, SBK__JOB_RECIPE = 3 };
#define SBK__JOB(kind, index) (((uint64_t)(kind) << 62) | (uint64_t)(index))
#define SBK__JOB_KIND(job) ((uint32_t)((job) >> 62))
#define SBK__JOB_INDEX(job) ((uint32_t)((job)&0xFFFFFFFFu))
#define SBK__SKIPPED_BIT 0x8000000000000000ull /* completion value[2]: the job was a duplicate */
#define SBK__NO_ENTRY 0xFFFFFFFFu
#define SBK__MAX_FRAGMENT_KEY 4096u

struct sbk_router {
  /* immutable after create */
  sbk_router_desc desc;
  const sbk_bundle* bundle;
  VkDevice device;
  sbk__router_vk vk;
  uint32_t entry_count, recipe_count, layout_count;
  VkDescriptorSetLayout* set_layouts;
  VkPipelineLayout* pipeline_layouts;
  uint32_t dynamic;       /* the dynamic-state fallback is in use */
  uint32_t location_mask;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  VkBuffer defaults_buffer;
  VkDeviceMemory defaults_memory;
  uint32_t max_vertex_bindings;
  sbk_dynamic_fallback* recipes; /* the bundle's dynamic-state fallback recipes, checked once at create */
  VkPipeline* recipe_pipelines;  /* created at load, by recipe */
  uint32_t* recipe_table; /* open addressing: recipe index + 1, 0 = empty */
  uint64_t recipe_table_mask;
  uint64_t capacity;      /* outstanding requests at most (queue_capacity) */
  uint64_t ring_size;     /* cells of each ring: room for the requests and every load job */
  sbk_executor_submit_fn submit;
  void* executor;
  sbk_thread_pool* own_pool;

  /* render thread */
  sbk__entry_state* states;
  uint32_t* retry_list;
  uint32_t retry_count;
  uint64_t frame;
  uint32_t epoch;
  uint32_t prewarm_cursor, prewarm_count;
  uint64_t outstanding;
  uint64_t refused;       /* executor runs to offer again */
  uint32_t fallback_ready;
  sbk_router_stats stats;
  sbk_router_promotion* promotions;
  uint32_t promotion_count;
  uint8_t* key_scratch;
  size_t key_scratch_size;

  /* shared with workers (atomics) */
  sbk__ring required, speculative, completions;
  uint64_t* claimed;      /* per entry: 1 while a job owns (or owned, successfully) its creation */
  uint64_t runs_submitted, runs_finished;
  uint64_t stopping;
  uint64_t worker_cpu_ns, worker_creations;
};

static int sbk__router_is_pipeline_entry(const sbk_entry* e) { return e->kind == SBK_KEY_KIND_PIPELINE; }

/* Reads a module of the bundle and creates its VkShaderModule. Worker or render thread. */
static VkResult sbk__router_shader_module(const sbk_router* r, uint32_t module, VkShaderModule* out) {
  sbk_module_info info;
  void* words;
  size_t size = 0;
  VkShaderModuleCreateInfo ci;
  VkResult vr;
  *out = VK_NULL_HANDLE;
  if (sbk_bundle_module_info(r->bundle, module, &info) != SBK_OK) return VK_ERROR_INITIALIZATION_FAILED;
  words = SBK_ROUTER_CALLOC(1, info.raw_size);
  if (!words) return VK_ERROR_OUT_OF_HOST_MEMORY;
  if (sbk_bundle_read_module(r->bundle, module, words, info.raw_size, &size, NULL) != SBK_OK) {
    SBK_ROUTER_FREE(words);
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  memset(&ci, 0, sizeof ci);
  ci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  ci.codeSize = size;
  ci.pCode = (const uint32_t*)words;
  vr = r->vk.create_shader_module(r->device, &ci, NULL, out);
  SBK_ROUTER_FREE(words);
  return vr;
}

/* A host state of the signature, for the parts of the dynamic-state pipeline that stay static. */
static void sbk__router_signature_host(const sbk_attachment_signature* sig, sbk_host_state* host) {
  uint32_t i;
  memset(host, 0, sizeof *host);
  host->topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  host->polygon_mode = VK_POLYGON_MODE_FILL;
  host->color_count = sig->color_count;
  for (i = 0; i < sig->color_count && i < SBK_MAX_COLOR_ATTACHMENTS; ++i) {
    host->color_formats[i] = sig->color_formats[i];
    host->blend[i].write_mask = SBK_WRITE_R | SBK_WRITE_G | SBK_WRITE_B | SBK_WRITE_A;
  }
  host->depth_format = sig->depth_format;
  host->samples = sig->samples;
}

static VkResult sbk__router_create_pipeline(const sbk_router* r, uint32_t kind, uint32_t index, VkPipeline* out) {
  sbk_host_state host;
  sbk_vk_pipeline_storage storage;
  VkGraphicsPipelineCreateInfo ci;
  VkShaderModule vertex = VK_NULL_HANDLE, fragment = VK_NULL_HANDLE;
  uint32_t vertex_module, fragment_module, layout;
  VkResult vr;
  *out = VK_NULL_HANDLE;
  if (kind == SBK__JOB_RECIPE) {
    const sbk_dynamic_fallback* d = &r->recipes[index];
    vertex_module = d->vertex_module;
    fragment_module = d->fragment_module;
    layout = d->layout;
    sbk__router_signature_host(&d->signature, &host);
  } else {
    sbk_entry e;
    if (sbk_bundle_entry_at(r->bundle, index, &e) != SBK_OK || !sbk__router_is_pipeline_entry(&e) ||
        e.layout >= r->layout_count)
      return VK_ERROR_INITIALIZATION_FAILED;
    if (sbk_bundle_entry_host_state(r->bundle, index, &host) != SBK_OK) return VK_ERROR_INITIALIZATION_FAILED;
    vertex_module = e.vertex_module;
    fragment_module = e.fragment_module;
    layout = e.layout;
  }
  if (layout >= r->layout_count) return VK_ERROR_INITIALIZATION_FAILED;
  vr = sbk__router_shader_module(r, vertex_module, &vertex);
  if (vr == VK_SUCCESS) vr = sbk__router_shader_module(r, fragment_module, &fragment);
  if (vr == VK_SUCCESS) {
    sbk_vk_fill_pipeline(&host, vertex, fragment, r->pipeline_layouts[layout], &storage, &ci);
    if (kind != SBK__JOB_RECIPE) {
      /* A specialized bundle's pipeline takes its values from the bundle (the data stays in the bundle). */
      sbk_specialization specialization;
      const sbk_result s = sbk_bundle_specialization(r->bundle, index, &specialization);
      if ((s != SBK_OK && s != SBK_NOT_FOUND) ||
          (s == SBK_OK && sbk_vk_fill_specialization(&specialization, &storage) != SBK_OK))
        vr = VK_ERROR_INITIALIZATION_FAILED; /* damaged data: counted as a failed creation, the modules freed */
    }
    if (kind == SBK__JOB_RECIPE) {
      /* Everything the host state can vary, except the attachment signature, is dynamic. */
      static const VkDynamicState kDynamic[] = {
          VK_DYNAMIC_STATE_VIEWPORT,
          VK_DYNAMIC_STATE_SCISSOR,
          VK_DYNAMIC_STATE_LINE_WIDTH,
          VK_DYNAMIC_STATE_DEPTH_BIAS,
          VK_DYNAMIC_STATE_BLEND_CONSTANTS,
          VK_DYNAMIC_STATE_DEPTH_BOUNDS,
          VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
          VK_DYNAMIC_STATE_STENCIL_WRITE_MASK,
          VK_DYNAMIC_STATE_STENCIL_REFERENCE,
          VK_DYNAMIC_STATE_CULL_MODE_EXT,
          VK_DYNAMIC_STATE_FRONT_FACE_EXT,
          VK_DYNAMIC_STATE_PRIMITIVE_TOPOLOGY_EXT,
          VK_DYNAMIC_STATE_DEPTH_TEST_ENABLE_EXT,
          VK_DYNAMIC_STATE_DEPTH_WRITE_ENABLE_EXT,
          VK_DYNAMIC_STATE_DEPTH_COMPARE_OP_EXT,
          VK_DYNAMIC_STATE_DEPTH_BOUNDS_TEST_ENABLE_EXT,
          VK_DYNAMIC_STATE_STENCIL_TEST_ENABLE_EXT,
          VK_DYNAMIC_STATE_STENCIL_OP_EXT,
          VK_DYNAMIC_STATE_RASTERIZER_DISCARD_ENABLE_EXT,
          VK_DYNAMIC_STATE_DEPTH_BIAS_ENABLE_EXT,
          VK_DYNAMIC_STATE_PRIMITIVE_RESTART_ENABLE_EXT,
          VK_DYNAMIC_STATE_VERTEX_INPUT_EXT,
          VK_DYNAMIC_STATE_POLYGON_MODE_EXT,
          VK_DYNAMIC_STATE_COLOR_BLEND_ENABLE_EXT,
          VK_DYNAMIC_STATE_COLOR_BLEND_EQUATION_EXT,
          VK_DYNAMIC_STATE_COLOR_WRITE_MASK_EXT,
      };
      storage.dynamic.dynamicStateCount = (uint32_t)(sizeof kDynamic / sizeof kDynamic[0]);
      storage.dynamic.pDynamicStates = kDynamic;
      ci.pVertexInputState = NULL; /* ignored with VK_DYNAMIC_STATE_VERTEX_INPUT_EXT */
    }
    if (vr == VK_SUCCESS) vr = r->vk.create_graphics_pipelines(r->device, r->desc.pipeline_cache, 1, &ci, NULL, out);
  }
  if (vertex) r->vk.destroy_shader_module(r->device, vertex, NULL);
  if (fragment) r->vk.destroy_shader_module(r->device, fragment, NULL);
  if (vr != VK_SUCCESS && *out != VK_NULL_HANDLE) {
    r->vk.destroy_pipeline(r->device, *out, NULL);
    *out = VK_NULL_HANDLE;
  }
  return vr;
}

static uint64_t sbk__handle_bits(VkPipeline p) {
  uint64_t v = 0;
  memcpy(&v, &p, sizeof p < sizeof v ? sizeof p : sizeof v);
  return v;
}
static VkPipeline sbk__handle_of(uint64_t v) {
  VkPipeline p;
  memset(&p, 0, sizeof p);
  memcpy(&p, &v, sizeof p < sizeof v ? sizeof p : sizeof v);
  return p;
}

/* Runs one queued job (required lane first). Returns 0 when both lanes were empty. */
static int sbk__router_run_one(sbk_router* r) {
  uint64_t job[3], done[3];
  for (;;) {
    if (!sbk__ring_pop(&r->required, job) && !sbk__ring_pop(&r->speculative, job)) return 0;
    {
      const uint32_t kind = SBK__JOB_KIND(job[0]), index = SBK__JOB_INDEX(job[0]);
      VkPipeline pipeline = VK_NULL_HANDLE;
      VkResult vr = VK_ERROR_UNKNOWN;
      uint64_t expected = 0;
      done[0] = job[0];
      done[1] = 0;
      if (kind == SBK__JOB_EXACT && !sbk__cas(&r->claimed[index], &expected, 1)) {
        done[2] = SBK__SKIPPED_BIT; /* another job owns this entry */
      } else if (sbk__load_seq(&r->stopping)) {
        done[2] = (uint32_t)VK_ERROR_UNKNOWN;
      } else {
        const uint64_t cpu0 = sbk__thread_cpu_ns();
        vr = sbk__router_create_pipeline(r, kind, index, &pipeline);
        sbk__fetch_add(&r->worker_cpu_ns, sbk__thread_cpu_ns() - cpu0);
        sbk__fetch_add(&r->worker_creations, 1);
        done[1] = sbk__handle_bits(pipeline);
        done[2] = (uint32_t)vr;
      }
      /* The completion ring holds `capacity` cells and at most `capacity` jobs are outstanding: a push fails
       * only transiently, while the render thread has not yet released a popped cell. */
      while (!sbk__ring_push(&r->completions, done)) sbk__yield();
      return 1;
    }
  }
}

static void sbk__router_worker(void* arg) {
  sbk_router* r = (sbk_router*)arg;
  sbk__router_run_one(r);
  sbk__fetch_add(&r->runs_finished, 1);
}

static void sbk__router_offer(sbk_router* r) {
  sbk__fetch_add(&r->runs_submitted, 1);
  if (r->submit(r->executor, sbk__router_worker, r) != 0) {
    sbk__fetch_add(&r->runs_submitted, (uint64_t)-1);
    ++r->refused;
    ++r->stats.executor_refused;
  }
}

/* Queues a job; 0 when the router's capacity (requests: `limited`) or the lane is full. */
static int sbk__router_push(sbk_router* r, sbk__ring* lane, uint64_t job, int limited) {
  uint64_t v[3];
  v[0] = job;
  v[1] = 0;
  v[2] = 0;
  if (limited && r->outstanding >= r->capacity) return 0;
  if (!sbk__ring_push(lane, v)) return 0;
  ++r->outstanding;
  sbk__router_offer(r);
  return 1;
}

static void sbk__router_retry_later(sbk_router* r, uint32_t entry, uint32_t state, uint64_t frames) {
  sbk__entry_state* s = &r->states[entry];
  s->promotion = (uint8_t)state;
  s->retry_frame = r->frame + frames;
  if (!s->in_retry_list) {
    s->in_retry_list = 1;
    r->retry_list[r->retry_count++] = entry;
  }
}

/* Asks for the exact pipeline of `entry`: `required` when a draw waits for it. */
static void sbk__router_request(sbk_router* r, uint32_t entry, int required) {
  sbk__entry_state* s = &r->states[entry];
  if (s->promotion == SBK_PROMOTION_ABSENT) {
    if (sbk__router_push(r, required ? &r->required : &r->speculative, SBK__JOB(SBK__JOB_EXACT, entry), 1)) {
      s->promotion = SBK_PROMOTION_PENDING;
      s->required = (uint8_t)(required != 0);
      if (required)
        ++r->stats.queued_required;
      else
        ++r->stats.queued_speculative;
    } else {
      ++r->stats.queue_full;
      if (required) s->required = 1;
      sbk__router_retry_later(r, entry, SBK_PROMOTION_QUEUE_BACKOFF, r->desc.retry_frames);
    }
  } else if (s->promotion == SBK_PROMOTION_PENDING && required && !s->required) {
    /* Queued speculatively: a second job on the required lane overtakes it; whichever runs first creates it. */
    s->required = 1;
    if (sbk__router_push(r, &r->required, SBK__JOB(SBK__JOB_EXACT, entry), 1))
      ++r->stats.queued_required;
    else
      ++r->stats.queue_full;
  } else if (required) {
    s->required = 1;
  }
}

static void sbk__router_adopt_one(sbk_router* r, const uint64_t done[3]) {
  const uint32_t kind = SBK__JOB_KIND(done[0]), index = SBK__JOB_INDEX(done[0]);
  const VkPipeline pipeline = sbk__handle_of(done[1]);
  const int skipped = (done[2] & SBK__SKIPPED_BIT) != 0;
  const VkResult vr = (VkResult)(int32_t)(uint32_t)done[2];
  --r->outstanding;
  if (skipped) return;
  if (kind == SBK__JOB_RECIPE) {
    ++r->stats.load_pipelines;
    if (vr == VK_SUCCESS && pipeline) {
      r->recipe_pipelines[index] = pipeline;
      ++r->fallback_ready;
    } else {
      ++r->stats.load_failures;
    }
    return;
  }
  if (kind == SBK__JOB_FALLBACK) {
    ++r->stats.load_pipelines;
    if (vr == VK_SUCCESS && pipeline) {
      r->states[index].pipeline = pipeline;
      r->states[index].promotion = SBK_PROMOTION_READY;
      ++r->fallback_ready;
    } else {
      ++r->stats.load_failures;
    }
    return;
  }
  {
    sbk__entry_state* s = &r->states[index];
    if (vr == VK_SUCCESS && pipeline) {
      if (s->promotion == SBK_PROMOTION_READY) {
        r->vk.destroy_pipeline(r->device, pipeline, NULL);
        ++r->stats.duplicates;
        return;
      }
      s->pipeline = pipeline;
      s->promotion = SBK_PROMOTION_READY;
      ++s->generation;
      ++r->stats.adopted;
      if (s->demand_ns) {
        sbk_router_promotion* p = &r->promotions[r->promotion_count++];
        p->entry = index;
        p->reserved = 0;
        p->demand_frame = s->demand_frame;
        p->adopted_frame = r->frame;
        p->latency_ns = sbk__now_ns() - s->demand_ns;
      }
      return;
    }
    if (pipeline) r->vk.destroy_pipeline(r->device, pipeline, NULL);
    ++r->stats.failed_attempts;
    ++s->attempts;
    sbk__store_release(&r->claimed[index], 0);
    if (s->attempts >= r->desc.max_attempts) {
      s->promotion = SBK_PROMOTION_FAILED_PERMANENTLY;
      ++r->stats.failed_permanently;
      ++s->generation; /* bindings waiting for it settle on their fallback (or uncovered) */
    } else {
      sbk__router_retry_later(r, index, SBK_PROMOTION_FAILED_BACKOFF,
                              (uint64_t)r->desc.retry_frames << (s->attempts - 1));
    }
  }
}

static void sbk__router_top_up_prewarm(sbk_router* r) {
  /* Keep at most half the capacity for speculation, so required work always finds room. */
  while (r->desc.prewarm && r->prewarm_cursor < r->prewarm_count && r->outstanding < r->capacity / 2) {
    uint32_t entry = 0, frame = 0;
    sbk_entry e;
    const uint32_t position = r->prewarm_cursor++;
    if (sbk_bundle_prewarm_at(r->bundle, position, &entry, &frame) != SBK_OK) {
      ++r->stats.corrupt;
      continue;
    }
    if (entry >= r->entry_count || sbk_bundle_entry_at(r->bundle, entry, &e) != SBK_OK ||
        !sbk__router_is_pipeline_entry(&e) || e.route != SBK_ROUTE_EXACT) {
      ++r->stats.corrupt;
      continue;
    }
    if (r->states[entry].promotion == SBK_PROMOTION_ABSENT) sbk__router_request(r, entry, 0);
  }
}

static PFN_vkVoidFunction sbk__router_device_fn(const sbk_router* r, const char* name) {
  return r->vk.get_device_proc_addr(r->device, name);
}

static int sbk__router_load_functions(sbk_router* r) {
  const PFN_vkGetInstanceProcAddr gipa = r->desc.get_instance_proc_addr;
  sbk__router_vk* vk = &r->vk;
  vk->get_device_proc_addr = (PFN_vkGetDeviceProcAddr)gipa(r->desc.instance, "vkGetDeviceProcAddr");
  vk->memory_properties =
      (PFN_vkGetPhysicalDeviceMemoryProperties)gipa(r->desc.instance, "vkGetPhysicalDeviceMemoryProperties");
  vk->device_properties = (PFN_vkGetPhysicalDeviceProperties)gipa(r->desc.instance, "vkGetPhysicalDeviceProperties");
  if (!vk->get_device_proc_addr || !vk->memory_properties || !vk->device_properties) return 0;
#define SBK__LOAD(field, type, name) vk->field = (type)sbk__router_device_fn(r, name)
  SBK__LOAD(create_graphics_pipelines, PFN_vkCreateGraphicsPipelines, "vkCreateGraphicsPipelines");
  SBK__LOAD(destroy_pipeline, PFN_vkDestroyPipeline, "vkDestroyPipeline");
  SBK__LOAD(create_shader_module, PFN_vkCreateShaderModule, "vkCreateShaderModule");
  SBK__LOAD(destroy_shader_module, PFN_vkDestroyShaderModule, "vkDestroyShaderModule");
  SBK__LOAD(create_set_layout, PFN_vkCreateDescriptorSetLayout, "vkCreateDescriptorSetLayout");
  SBK__LOAD(destroy_set_layout, PFN_vkDestroyDescriptorSetLayout, "vkDestroyDescriptorSetLayout");
  SBK__LOAD(create_pipeline_layout, PFN_vkCreatePipelineLayout, "vkCreatePipelineLayout");
  SBK__LOAD(destroy_pipeline_layout, PFN_vkDestroyPipelineLayout, "vkDestroyPipelineLayout");
  SBK__LOAD(create_buffer, PFN_vkCreateBuffer, "vkCreateBuffer");
  SBK__LOAD(destroy_buffer, PFN_vkDestroyBuffer, "vkDestroyBuffer");
  SBK__LOAD(buffer_requirements, PFN_vkGetBufferMemoryRequirements, "vkGetBufferMemoryRequirements");
  SBK__LOAD(allocate_memory, PFN_vkAllocateMemory, "vkAllocateMemory");
  SBK__LOAD(free_memory, PFN_vkFreeMemory, "vkFreeMemory");
  SBK__LOAD(bind_buffer_memory, PFN_vkBindBufferMemory, "vkBindBufferMemory");
  SBK__LOAD(map_memory, PFN_vkMapMemory, "vkMapMemory");
  SBK__LOAD(unmap_memory, PFN_vkUnmapMemory, "vkUnmapMemory");
  SBK__LOAD(cmd_bind_pipeline, PFN_vkCmdBindPipeline, "vkCmdBindPipeline");
  SBK__LOAD(cmd_bind_vertex_buffers, PFN_vkCmdBindVertexBuffers, "vkCmdBindVertexBuffers");
  SBK__LOAD(cmd_set_line_width, PFN_vkCmdSetLineWidth, "vkCmdSetLineWidth");
  SBK__LOAD(cmd_set_blend_constants, PFN_vkCmdSetBlendConstants, "vkCmdSetBlendConstants");
  SBK__LOAD(cmd_set_stencil_compare_mask, PFN_vkCmdSetStencilCompareMask, "vkCmdSetStencilCompareMask");
  SBK__LOAD(cmd_set_stencil_write_mask, PFN_vkCmdSetStencilWriteMask, "vkCmdSetStencilWriteMask");
  SBK__LOAD(cmd_set_stencil_reference, PFN_vkCmdSetStencilReference, "vkCmdSetStencilReference");
  SBK__LOAD(cmd_set_depth_bias, PFN_vkCmdSetDepthBias, "vkCmdSetDepthBias");
  SBK__LOAD(cmd_set_depth_bounds, PFN_vkCmdSetDepthBounds, "vkCmdSetDepthBounds");
  if (!vk->create_graphics_pipelines || !vk->destroy_pipeline || !vk->create_shader_module ||
      !vk->destroy_shader_module || !vk->create_set_layout || !vk->destroy_set_layout ||
      !vk->create_pipeline_layout || !vk->destroy_pipeline_layout || !vk->create_buffer || !vk->destroy_buffer ||
      !vk->buffer_requirements || !vk->allocate_memory || !vk->free_memory || !vk->bind_buffer_memory ||
      !vk->map_memory || !vk->unmap_memory || !vk->cmd_bind_pipeline || !vk->cmd_bind_vertex_buffers ||
      !vk->cmd_set_line_width || !vk->cmd_set_blend_constants || !vk->cmd_set_stencil_compare_mask ||
      !vk->cmd_set_stencil_write_mask || !vk->cmd_set_stencil_reference || !vk->cmd_set_depth_bias ||
      !vk->cmd_set_depth_bounds)
    return 0;
  if (r->desc.create_graphics_pipelines) vk->create_graphics_pipelines = r->desc.create_graphics_pipelines;
  if (r->desc.dynamic_state) {
    SBK__LOAD(cmd_set_cull_mode, PFN_vkCmdSetCullModeEXT, "vkCmdSetCullModeEXT");
    SBK__LOAD(cmd_set_front_face, PFN_vkCmdSetFrontFaceEXT, "vkCmdSetFrontFaceEXT");
    SBK__LOAD(cmd_set_topology, PFN_vkCmdSetPrimitiveTopologyEXT, "vkCmdSetPrimitiveTopologyEXT");
    SBK__LOAD(cmd_set_depth_test, PFN_vkCmdSetDepthTestEnableEXT, "vkCmdSetDepthTestEnableEXT");
    SBK__LOAD(cmd_set_depth_write, PFN_vkCmdSetDepthWriteEnableEXT, "vkCmdSetDepthWriteEnableEXT");
    SBK__LOAD(cmd_set_depth_compare, PFN_vkCmdSetDepthCompareOpEXT, "vkCmdSetDepthCompareOpEXT");
    SBK__LOAD(cmd_set_depth_bounds_test, PFN_vkCmdSetDepthBoundsTestEnableEXT, "vkCmdSetDepthBoundsTestEnableEXT");
    SBK__LOAD(cmd_set_stencil_test, PFN_vkCmdSetStencilTestEnableEXT, "vkCmdSetStencilTestEnableEXT");
    SBK__LOAD(cmd_set_stencil_op, PFN_vkCmdSetStencilOpEXT, "vkCmdSetStencilOpEXT");
    SBK__LOAD(cmd_set_rasterizer_discard, PFN_vkCmdSetRasterizerDiscardEnableEXT, "vkCmdSetRasterizerDiscardEnableEXT");
    SBK__LOAD(cmd_set_depth_bias_enable, PFN_vkCmdSetDepthBiasEnableEXT, "vkCmdSetDepthBiasEnableEXT");
    SBK__LOAD(cmd_set_primitive_restart, PFN_vkCmdSetPrimitiveRestartEnableEXT, "vkCmdSetPrimitiveRestartEnableEXT");
    SBK__LOAD(cmd_set_polygon_mode, PFN_vkCmdSetPolygonModeEXT, "vkCmdSetPolygonModeEXT");
    SBK__LOAD(cmd_set_blend_enable, PFN_vkCmdSetColorBlendEnableEXT, "vkCmdSetColorBlendEnableEXT");
    SBK__LOAD(cmd_set_blend_equation, PFN_vkCmdSetColorBlendEquationEXT, "vkCmdSetColorBlendEquationEXT");
    SBK__LOAD(cmd_set_write_mask, PFN_vkCmdSetColorWriteMaskEXT, "vkCmdSetColorWriteMaskEXT");
    SBK__LOAD(cmd_set_vertex_input, PFN_vkCmdSetVertexInputEXT, "vkCmdSetVertexInputEXT");
    if (!vk->cmd_set_cull_mode || !vk->cmd_set_front_face || !vk->cmd_set_topology || !vk->cmd_set_depth_test ||
        !vk->cmd_set_depth_write || !vk->cmd_set_depth_compare || !vk->cmd_set_depth_bounds_test ||
        !vk->cmd_set_stencil_test || !vk->cmd_set_stencil_op || !vk->cmd_set_rasterizer_discard ||
        !vk->cmd_set_depth_bias_enable || !vk->cmd_set_primitive_restart || !vk->cmd_set_polygon_mode ||
        !vk->cmd_set_blend_enable || !vk->cmd_set_blend_equation || !vk->cmd_set_write_mask ||
        !vk->cmd_set_vertex_input)
      return 0;
  }
#undef SBK__LOAD
  return 1;
}

static uint64_t sbk__recipe_hash(uint32_t family_entry, const sbk_attachment_signature* sig) {
  uint8_t bytes[4 + sizeof(sbk_attachment_signature)];
  memcpy(bytes, &family_entry, 4);
  memcpy(bytes + 4, sig, sizeof *sig);
  return XXH3_64bits(bytes, sizeof bytes);
}

static uint32_t sbk__router_find_recipe(const sbk_router* r, uint32_t family_entry, const sbk_attachment_signature* sig) {
  uint64_t slot;
  if (!r->recipe_table) return SBK__NO_ENTRY;
  for (slot = sbk__recipe_hash(family_entry, sig) & r->recipe_table_mask;; slot = (slot + 1) & r->recipe_table_mask) {
    const uint32_t v = r->recipe_table[slot];
    const sbk_dynamic_fallback* c;
    if (v == 0) return SBK__NO_ENTRY;
    c = &r->recipes[v - 1];
    if (c->family_entry == family_entry && memcmp(&c->signature, sig, sizeof *sig) == 0) return v - 1;
  }
}

static VkResult sbk__router_create_defaults(sbk_router* r) {
  VkBufferCreateInfo bi;
  VkMemoryRequirements req;
  VkPhysicalDeviceMemoryProperties mp;
  VkMemoryAllocateInfo ai;
  uint32_t type;
  void* mapped = NULL;
  VkResult vr;
  memset(&bi, 0, sizeof bi);
  bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bi.size = sizeof r->defaults;
  bi.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vr = r->vk.create_buffer(r->device, &bi, NULL, &r->defaults_buffer);
  if (vr != VK_SUCCESS) return vr;
  r->vk.buffer_requirements(r->device, r->defaults_buffer, &req);
  r->vk.memory_properties(r->desc.physical_device, &mp);
  for (type = 0; type < mp.memoryTypeCount; ++type) {
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((req.memoryTypeBits >> type & 1u) && (mp.memoryTypes[type].propertyFlags & want) == want) break;
  }
  if (type == mp.memoryTypeCount) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  memset(&ai, 0, sizeof ai);
  ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  vr = r->vk.allocate_memory(r->device, &ai, NULL, &r->defaults_memory);
  if (vr != VK_SUCCESS) return vr;
  vr = r->vk.bind_buffer_memory(r->device, r->defaults_buffer, r->defaults_memory, 0);
  if (vr != VK_SUCCESS) return vr;
  vr = r->vk.map_memory(r->device, r->defaults_memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (vr != VK_SUCCESS) return vr;
  memcpy(mapped, r->defaults, sizeof r->defaults);
  r->vk.unmap_memory(r->device, r->defaults_memory);
  return VK_SUCCESS;
}

static sbk_result sbk__router_fail(sbk_router* r, sbk_result result, VkResult vr, VkResult* vk_result) {
  if (vk_result) *vk_result = vr;
  sbk_router_destroy(r);
  return result;
}

SBK_API sbk_result sbk_router_create(const sbk_router_desc* desc, sbk_router** out, VkResult* vk_result) {
  sbk_router* r;
  uint32_t i;
  VkResult vr;
  SBK_ASSERT(desc != NULL && out != NULL);
  *out = NULL;
  if (vk_result) *vk_result = VK_SUCCESS;
  if (!desc->device || !desc->physical_device || !desc->get_instance_proc_addr || !desc->bundle)
    return SBK_ERROR_INVALID_STATE;
  r = (sbk_router*)SBK_ROUTER_CALLOC(1, sizeof *r);
  if (!r) return SBK_ERROR_OUT_OF_MEMORY;
  r->desc = *desc;
  if (!r->desc.worker_count) r->desc.worker_count = 2;
  if (!r->desc.queue_capacity) r->desc.queue_capacity = 4096;
  if (!r->desc.adopt_max_per_frame) r->desc.adopt_max_per_frame = 64;
  if (!r->desc.adopt_budget_us) r->desc.adopt_budget_us = 500;
  if (!r->desc.max_attempts) r->desc.max_attempts = 3;
  if (r->desc.max_attempts > 32) r->desc.max_attempts = 32;
  if (!r->desc.retry_frames) r->desc.retry_frames = 8;
  r->bundle = desc->bundle;
  r->device = desc->device;
  r->epoch = 1;
  r->entry_count = sbk_bundle_entry_count(desc->bundle);
  r->layout_count = sbk_bundle_layout_count(desc->bundle);
  r->prewarm_count = sbk_bundle_prewarm_count(desc->bundle);
  if (!sbk__router_load_functions(r)) return sbk__router_fail(r, SBK_ERROR_DEVICE, VK_ERROR_INITIALIZATION_FAILED, vk_result);
  {
    VkPhysicalDeviceProperties p;
    r->vk.device_properties(desc->physical_device, &p);
    r->max_vertex_bindings = p.limits.maxVertexInputBindings;
  }

  /* Dynamic-state fallback: only with the recipes, their defaults and the caller's device features. */
  if (desc->dynamic_state && sbk_bundle_dynamic_fallback_count(desc->bundle) > 0) {
    sbk_result sr = sbk_bundle_vertex_defaults(desc->bundle, &r->location_mask, r->defaults);
    if (sr == SBK_ERROR_CORRUPT) return sbk__router_fail(r, SBK_ERROR_CORRUPT, VK_SUCCESS, vk_result);
    if (sr == SBK_OK) {
      r->recipe_count = sbk_bundle_dynamic_fallback_count(desc->bundle);
      r->recipes = (sbk_dynamic_fallback*)SBK_ROUTER_CALLOC(r->recipe_count, sizeof *r->recipes);
      r->recipe_pipelines = (VkPipeline*)SBK_ROUTER_CALLOC(r->recipe_count, sizeof *r->recipe_pipelines);
      r->recipe_table_mask = sbk__pow2_at_least((uint64_t)r->recipe_count * 2u) - 1u;
      r->recipe_table = (uint32_t*)SBK_ROUTER_CALLOC((size_t)r->recipe_table_mask + 1u, sizeof(uint32_t));
      if (!r->recipes || !r->recipe_pipelines || !r->recipe_table)
        return sbk__router_fail(r, SBK_ERROR_OUT_OF_MEMORY, VK_SUCCESS, vk_result);
      if (sbk_bundle_read_dynamic_fallbacks(desc->bundle, r->recipes, r->recipe_count) != SBK_OK)
        return sbk__router_fail(r, SBK_ERROR_CORRUPT, VK_SUCCESS, vk_result);
      for (i = 0; i < r->recipe_count; ++i) {
        uint64_t slot;
        if (r->recipes[i].layout >= r->layout_count) return sbk__router_fail(r, SBK_ERROR_CORRUPT, VK_SUCCESS, vk_result);
        slot = sbk__recipe_hash(r->recipes[i].family_entry, &r->recipes[i].signature) & r->recipe_table_mask;
        while (r->recipe_table[slot]) slot = (slot + 1) & r->recipe_table_mask;
        r->recipe_table[slot] = i + 1;
      }
      r->dynamic = 1;
    }
  }

  r->states = (sbk__entry_state*)SBK_ROUTER_CALLOC(r->entry_count ? r->entry_count : 1, sizeof *r->states);
  r->claimed = (uint64_t*)SBK_ROUTER_CALLOC(r->entry_count ? r->entry_count : 1, sizeof(uint64_t));
  /* An entry is listed once, but while begin_frame requeues, a due entry may be appended before its old slot is
   * dropped: room for twice the entries. */
  r->retry_list = (uint32_t*)SBK_ROUTER_CALLOC(r->entry_count ? 2u * (size_t)r->entry_count : 1, sizeof(uint32_t));
  r->promotions = (sbk_router_promotion*)SBK_ROUTER_CALLOC(r->entry_count ? r->entry_count : 1, sizeof *r->promotions);
  r->set_layouts = (VkDescriptorSetLayout*)SBK_ROUTER_CALLOC(r->layout_count ? r->layout_count : 1, sizeof(VkDescriptorSetLayout));
  r->pipeline_layouts = (VkPipelineLayout*)SBK_ROUTER_CALLOC(r->layout_count ? r->layout_count : 1, sizeof(VkPipelineLayout));
  r->key_scratch_size = SBK_PIPELINE_KEY_MAX_SIZE(SBK__MAX_FRAGMENT_KEY);
  r->key_scratch = (uint8_t*)SBK_ROUTER_CALLOC(1, r->key_scratch_size);
  /* Requests are refused beyond queue_capacity outstanding jobs; load jobs come on top, so every ring holds
   * them all at once and a completion always finds a cell. */
  r->capacity = r->desc.queue_capacity;
  r->ring_size = sbk__pow2_at_least((uint64_t)r->desc.queue_capacity + r->entry_count + r->recipe_count);
  if (r->ring_size > ((uint64_t)1 << 31)) return sbk__router_fail(r, SBK_ERROR_OUT_OF_MEMORY, VK_SUCCESS, vk_result);
  if (!r->states || !r->claimed || !r->retry_list || !r->promotions || !r->set_layouts || !r->pipeline_layouts ||
      !r->key_scratch || !sbk__ring_init(&r->required, r->ring_size) || !sbk__ring_init(&r->speculative, r->ring_size) ||
      !sbk__ring_init(&r->completions, r->ring_size))
    return sbk__router_fail(r, SBK_ERROR_OUT_OF_MEMORY, VK_SUCCESS, vk_result);

  for (i = 0; i < r->layout_count; ++i) {
    sbk_layout layout;
    VkDescriptorSetLayoutBinding bindings[SBK_MAX_LAYOUT_BINDINGS];
    VkDescriptorSetLayoutCreateInfo si;
    VkPipelineLayoutCreateInfo pi;
    VkPushConstantRange range;
    if (sbk_bundle_layout(desc->bundle, i, &layout) != SBK_OK)
      return sbk__router_fail(r, SBK_ERROR_CORRUPT, VK_SUCCESS, vk_result);
    sbk_vk_fill_set_layout(&layout, bindings, &si);
    vr = r->vk.create_set_layout(r->device, &si, NULL, &r->set_layouts[i]);
    if (vr != VK_SUCCESS) return sbk__router_fail(r, SBK_ERROR_DEVICE, vr, vk_result);
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pi.setLayoutCount = 1;
    pi.pSetLayouts = &r->set_layouts[i];
    if (layout.push_constant_size) {
      range.stageFlags = layout.push_constant_stages;
      range.offset = 0;
      range.size = layout.push_constant_size;
      pi.pushConstantRangeCount = 1;
      pi.pPushConstantRanges = &range;
    }
    vr = r->vk.create_pipeline_layout(r->device, &pi, NULL, &r->pipeline_layouts[i]);
    if (vr != VK_SUCCESS) return sbk__router_fail(r, SBK_ERROR_DEVICE, vr, vk_result);
  }
  if (r->dynamic) {
    vr = sbk__router_create_defaults(r);
    if (vr != VK_SUCCESS) return sbk__router_fail(r, SBK_ERROR_DEVICE, vr, vk_result);
  }
  if (desc->submit) {
    r->submit = desc->submit;
    r->executor = desc->executor;
  } else {
    sbk_result sr = sbk_thread_pool_create(r->desc.worker_count, (uint32_t)r->ring_size, &r->own_pool);
    if (sr != SBK_OK) return sbk__router_fail(r, sr, VK_SUCCESS, vk_result);
    r->submit = sbk_thread_pool_submit;
    r->executor = r->own_pool;
  }
  *out = r;
  return SBK_OK;
}

SBK_API sbk_result sbk_router_load(sbk_router* r) {
  uint32_t i, queued = 0;
  uint64_t done[3];
  SBK_ASSERT(r != NULL);
  if (r->dynamic) {
    for (i = 0; i < r->recipe_count; ++i)
      if (sbk__router_push(r, &r->required, SBK__JOB(SBK__JOB_RECIPE, i), 0)) ++queued;
  } else {
    for (i = 0; i < r->entry_count; ++i) {
      sbk_entry e;
      sbk_result sr = sbk_bundle_entry_at(r->bundle, i, &e);
      if (sr != SBK_OK) {
        ++r->stats.corrupt;
        continue;
      }
      if (!sbk__router_is_pipeline_entry(&e) || e.route != SBK_ROUTE_FALLBACK) continue;
      if (sbk__router_push(r, &r->required, SBK__JOB(SBK__JOB_FALLBACK, i), 0)) ++queued;
    }
  }
  /* The loading thread works too, then waits for what the workers still run. */
  while (sbk__router_run_one(r)) {
  }
  while (r->stats.load_pipelines < queued) {
    if (sbk__ring_pop(&r->completions, done))
      sbk__router_adopt_one(r, done);
    else
      sbk__yield();
  }
  sbk__router_top_up_prewarm(r);
  return SBK_OK;
}

SBK_API void sbk_router_begin_frame(sbk_router* r, uint64_t frame) {
  uint64_t done[3];
  uint32_t adopted = 0, i, kept = 0;
  const uint64_t start = sbk__now_ns(), budget = (uint64_t)r->desc.adopt_budget_us * 1000u;
  SBK_ASSERT(r != NULL);
  r->frame = frame;
  while (adopted < r->desc.adopt_max_per_frame && sbk__now_ns() - start < budget && sbk__ring_pop(&r->completions, done)) {
    sbk__router_adopt_one(r, done);
    ++adopted;
  }
  /* Requeue what is due and keep what still waits, compacting the list in place. A request that meets a full
   * queue again appends its entry past the entries listed at the start; that tail is moved down after. */
  {
    const uint32_t listed = r->retry_count;
    for (i = 0; i < listed; ++i) {
      const uint32_t entry = r->retry_list[i];
      sbk__entry_state* s = &r->states[entry];
      const int backing_off = s->promotion == SBK_PROMOTION_QUEUE_BACKOFF || s->promotion == SBK_PROMOTION_FAILED_BACKOFF;
      if (backing_off && frame < s->retry_frame) {
        r->retry_list[kept++] = entry;
        continue;
      }
      s->in_retry_list = 0;
      if (!backing_off) continue;
      s->promotion = SBK_PROMOTION_ABSENT;
      sbk__router_request(r, entry, s->required);
    }
    for (i = listed; i < r->retry_count; ++i) r->retry_list[kept++] = r->retry_list[i];
    r->retry_count = kept;
  }
  {
    /* Offer the refused runs again; stop at the first the executor still refuses (offer counts it anew). */
    uint64_t offers = r->refused;
    r->refused = 0;
    while (offers > 0 && r->refused == 0) {
      --offers;
      sbk__router_offer(r);
    }
    r->refused += offers;
  }
  sbk__router_top_up_prewarm(r);
}

SBK_API int sbk_router_current(const sbk_router* r, const sbk_router_binding* b) {
  return b->epoch == r->epoch &&
         (b->entry == SBK__NO_ENTRY || (b->entry < r->entry_count && r->states[b->entry].generation == b->generation));
}

/* Topologies a pipeline created with a triangle list may switch to without dynamicPrimitiveTopologyUnrestricted. */
static int sbk__triangle_topology(uint32_t topology) {
  return topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST || topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP ||
         topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN ||
         topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY ||
         topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY;
}

/* The lowest vertex binding number the host does not use, or UINT32_MAX. */
static uint32_t sbk__defaults_binding(const sbk_router* r, const sbk_host_state* host) {
  uint32_t candidate, i;
  for (candidate = 0; candidate < r->max_vertex_bindings && candidate < 64; ++candidate) {
    int used = 0;
    for (i = 0; i < host->binding_count && i < SBK_MAX_VERTEX_BINDINGS; ++i)
      if (host->bindings[i].binding == candidate) used = 1;
    if (!used) return candidate;
  }
  return UINT32_MAX;
}

/* The route resolution without side effects: fills *out and returns the exact entry (or SBK__NO_ENTRY). */
static sbk_result sbk__router_route(const sbk_router* r, const sbk_router_draw* draw, uint8_t* scratch,
                                    sbk_router_binding* out, uint32_t* exact_entry, uint32_t* corrupt) {
  sbk_entry e;
  size_t n = 0;
  sbk_result sr;
  uint32_t entry = SBK__NO_ENTRY;
  memset(out, 0, sizeof *out);
  out->epoch = r->epoch;
  out->entry = SBK__NO_ENTRY;
  *exact_entry = SBK__NO_ENTRY;
  *corrupt = 0;
  if (!draw->exact_key || draw->exact_key_size > SBK__MAX_FRAGMENT_KEY || !draw->host) return SBK_ERROR_INVALID_STATE;
  sr = sbk_encode_pipeline_key(SBK_ROUTE_EXACT, draw->exact_key, draw->exact_key_size, draw->host, scratch,
                               r->key_scratch_size, &n);
  if (sr != SBK_OK) return SBK_ERROR_INVALID_STATE;
  sr = sbk_bundle_find(r->bundle, scratch, n, &e);
  if (sr == SBK_OK && sbk__router_is_pipeline_entry(&e) && e.index < r->entry_count && e.layout < r->layout_count) {
    const sbk__entry_state* s = &r->states[e.index];
    entry = e.index;
    *exact_entry = entry;
    out->entry = entry;
    out->generation = s->generation;
    if (s->promotion == SBK_PROMOTION_READY && s->pipeline) {
      out->pipeline = s->pipeline;
      out->layout = r->pipeline_layouts[e.layout];
      out->layout_index = e.layout;
      out->route = SBK_ROUTED_EXACT;
      return SBK_OK;
    }
  } else if (sr == SBK_ERROR_CORRUPT) {
    *corrupt = 1;
  }
  if (draw->family_key && draw->family_key_size <= SBK__MAX_FRAGMENT_KEY) {
    if (r->dynamic) {
      sbk_attachment_signature sig;
      sr = sbk_bundle_find(r->bundle, draw->family_key, draw->family_key_size, &e);
      if (sr == SBK_OK && e.kind == SBK_KEY_KIND_FAMILY &&
          (r->desc.unrestricted_topology || sbk__triangle_topology(draw->host->topology))) {
        uint32_t recipe, binding;
        sbk_attachment_signature_of(draw->host, &sig);
        recipe = sbk__router_find_recipe(r, e.index, &sig);
        binding = sbk__defaults_binding(r, draw->host);
        if (recipe != SBK__NO_ENTRY && r->recipe_pipelines[recipe] && binding != UINT32_MAX) {
          out->pipeline = r->recipe_pipelines[recipe];
          out->layout_index = r->recipes[recipe].layout;
          out->layout = r->pipeline_layouts[out->layout_index];
          out->defaults_binding = binding;
          out->route = SBK_ROUTED_DYNAMIC_FALLBACK;
          return SBK_OK;
        }
      } else if (sr == SBK_ERROR_CORRUPT) {
        *corrupt = 1;
      }
    } else {
      sr = sbk_encode_pipeline_key(SBK_ROUTE_FALLBACK, draw->family_key, draw->family_key_size, draw->host, scratch,
                                   r->key_scratch_size, &n);
      if (sr == SBK_OK) sr = sbk_bundle_find(r->bundle, scratch, n, &e);
      if (sr == SBK_OK && sbk__router_is_pipeline_entry(&e) && e.index < r->entry_count &&
          e.layout < r->layout_count && r->states[e.index].pipeline) {
        out->pipeline = r->states[e.index].pipeline;
        out->layout_index = e.layout;
        out->layout = r->pipeline_layouts[e.layout];
        out->route = SBK_ROUTED_FALLBACK;
        return SBK_OK;
      } else if (sr == SBK_ERROR_CORRUPT) {
        *corrupt = 1;
      }
    }
  }
  out->route = SBK_ROUTED_UNCOVERED;
  return SBK_OK;
}

SBK_API sbk_result sbk_router_probe(const sbk_router* r, const sbk_router_draw* draw, sbk_router_binding* out,
                                    uint32_t* promotion) {
  uint32_t entry, corrupt;
  /* The probe may not use the render thread's scratch buffer: its own, on the stack. */
  uint8_t scratch[SBK_PIPELINE_KEY_MAX_SIZE(SBK__MAX_FRAGMENT_KEY)];
  sbk_result sr;
  SBK_ASSERT(r != NULL && draw != NULL && out != NULL);
  sr = sbk__router_route(r, draw, scratch, out, &entry, &corrupt);
  if (promotion) *promotion = entry == SBK__NO_ENTRY ? (uint32_t)SBK_PROMOTION_ABSENT : r->states[entry].promotion;
  return sr;
}

/* Creates an exact pipeline on the calling (render) thread. */
static void sbk__router_create_foreground(sbk_router* r, uint32_t entry) {
  sbk__entry_state* s = &r->states[entry];
  uint64_t expected = 0;
  if (sbk__cas(&r->claimed[entry], &expected, 1)) {
    VkPipeline pipeline = VK_NULL_HANDLE;
    const uint64_t t0 = sbk__now_ns();
    const VkResult vr = sbk__router_create_pipeline(r, SBK__JOB_EXACT, entry, &pipeline);
    uint64_t done[3];
    r->stats.foreground_ns += sbk__now_ns() - t0;
    ++r->stats.foreground_creations;
    done[0] = SBK__JOB(SBK__JOB_EXACT, entry);
    done[1] = sbk__handle_bits(pipeline);
    done[2] = (uint32_t)vr;
    ++r->outstanding; /* adopt_one releases it */
    sbk__router_adopt_one(r, done);
    return;
  }
  /* A worker is creating it: waiting for it is shorter than starting over. Adopt what finishes meanwhile. */
  while (s->promotion != SBK_PROMOTION_READY && sbk__load_acquire(&r->claimed[entry]) != 0) {
    uint64_t done[3];
    if (sbk__ring_pop(&r->completions, done))
      sbk__router_adopt_one(r, done);
    else
      sbk__yield();
  }
}

SBK_API sbk_result sbk_router_resolve(sbk_router* r, const sbk_router_draw* draw, sbk_router_binding* b) {
  uint32_t entry, corrupt;
  int first_use;
  sbk_result sr;
  SBK_ASSERT(r != NULL && draw != NULL && b != NULL);
  if (sbk_router_current(r, b)) {
    ++r->stats.current;
    return SBK_OK;
  }
  first_use = b->epoch == 0;
  sr = sbk__router_route(r, draw, r->key_scratch, b, &entry, &corrupt);
  if (corrupt) ++r->stats.corrupt;
  if (entry != SBK__NO_ENTRY) {
    sbk__entry_state* s = &r->states[entry];
    if (!s->demanded) {
      s->demanded = 1;
      if (b->route == SBK_ROUTED_EXACT)
        ++r->stats.ready_at_demand;
      else
        ++r->stats.not_ready_at_demand;
    }
    if (b->route != SBK_ROUTED_EXACT) {
      if (s->promotion != SBK_PROMOTION_FAILED_PERMANENTLY && b->route == SBK_ROUTED_UNCOVERED &&
          r->desc.foreground_creation) {
        sbk__router_create_foreground(r, entry);
        sr = sbk__router_route(r, draw, r->key_scratch, b, &entry, &corrupt);
      } else {
        if (b->route != SBK_ROUTED_UNCOVERED && s->demand_ns == 0) {
          s->demand_ns = sbk__now_ns();
          s->demand_frame = r->frame;
        }
        sbk__router_request(r, entry, 1);
      }
    }
  }
  ++r->stats.resolves[b->route];
  if (first_use) ++r->stats.first_uses[b->route];
  return sr;
}

SBK_API void sbk_router_cmd_bind(const sbk_router* r, VkCommandBuffer cmd, const sbk_router_binding* b,
                                 const sbk_host_state* host) {
  uint32_t i;
  SBK_ASSERT(r != NULL && b != NULL && host != NULL);
  if (!b->pipeline) return;
  r->vk.cmd_bind_pipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, b->pipeline);
  if (b->route != SBK_ROUTED_DYNAMIC_FALLBACK) return;
  {
    const sbk__router_vk* vk = &r->vk;
    const uint32_t dyn = host->dynamic_states;
    const uint32_t colors = host->color_count < SBK_MAX_COLOR_ATTACHMENTS ? host->color_count : SBK_MAX_COLOR_ATTACHMENTS;
    VkVertexInputBindingDescription2EXT bindings[SBK_MAX_VERTEX_BINDINGS + 1];
    VkVertexInputAttributeDescription2EXT attributes[SBK_VERTEX_LOCATIONS + SBK_MAX_VERTEX_ATTRIBUTES];
    uint32_t binding_count = 0, attribute_count = 0, supplied = 0;
    VkBool32 enables[SBK_MAX_COLOR_ATTACHMENTS];
    VkColorBlendEquationEXT equations[SBK_MAX_COLOR_ATTACHMENTS];
    VkColorComponentFlags masks[SBK_MAX_COLOR_ATTACHMENTS];
    const VkDeviceSize zero = 0;
    vk->cmd_set_cull_mode(cmd, host->cull_mode);
    vk->cmd_set_front_face(cmd, (VkFrontFace)host->front_face);
    vk->cmd_set_topology(cmd, (VkPrimitiveTopology)host->topology);
    vk->cmd_set_depth_test(cmd, host->depth_test);
    vk->cmd_set_depth_write(cmd, host->depth_write);
    vk->cmd_set_depth_compare(cmd, (VkCompareOp)host->depth_compare);
    vk->cmd_set_depth_bounds_test(cmd, VK_FALSE);
    vk->cmd_set_stencil_test(cmd, host->stencil_test);
    vk->cmd_set_stencil_op(cmd, VK_STENCIL_FACE_FRONT_BIT, (VkStencilOp)host->stencil_front.fail_op,
                           (VkStencilOp)host->stencil_front.pass_op, (VkStencilOp)host->stencil_front.depth_fail_op,
                           (VkCompareOp)host->stencil_front.compare_op);
    vk->cmd_set_stencil_op(cmd, VK_STENCIL_FACE_BACK_BIT, (VkStencilOp)host->stencil_back.fail_op,
                           (VkStencilOp)host->stencil_back.pass_op, (VkStencilOp)host->stencil_back.depth_fail_op,
                           (VkCompareOp)host->stencil_back.compare_op);
    if (!(dyn & SBK_DYNAMIC_STENCIL_COMPARE_MASK)) {
      vk->cmd_set_stencil_compare_mask(cmd, VK_STENCIL_FACE_FRONT_BIT, host->stencil_front.compare_mask);
      vk->cmd_set_stencil_compare_mask(cmd, VK_STENCIL_FACE_BACK_BIT, host->stencil_back.compare_mask);
    }
    if (!(dyn & SBK_DYNAMIC_STENCIL_WRITE_MASK)) {
      vk->cmd_set_stencil_write_mask(cmd, VK_STENCIL_FACE_FRONT_BIT, host->stencil_front.write_mask);
      vk->cmd_set_stencil_write_mask(cmd, VK_STENCIL_FACE_BACK_BIT, host->stencil_back.write_mask);
    }
    if (!(dyn & SBK_DYNAMIC_STENCIL_REFERENCE)) {
      vk->cmd_set_stencil_reference(cmd, VK_STENCIL_FACE_FRONT_BIT, host->stencil_front.reference);
      vk->cmd_set_stencil_reference(cmd, VK_STENCIL_FACE_BACK_BIT, host->stencil_back.reference);
    }
    /* What a static pipeline of sbk_vk_fill_pipeline has for values the host does not declare dynamic. */
    if (!(dyn & SBK_DYNAMIC_LINE_WIDTH)) vk->cmd_set_line_width(cmd, 1.0f);
    if (!(dyn & SBK_DYNAMIC_BLEND_CONSTANTS)) {
      const float constants[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      vk->cmd_set_blend_constants(cmd, constants);
    }
    if (!(dyn & SBK_DYNAMIC_DEPTH_BIAS)) vk->cmd_set_depth_bias(cmd, 0.0f, 0.0f, 0.0f);
    if (!(dyn & SBK_DYNAMIC_DEPTH_BOUNDS)) vk->cmd_set_depth_bounds(cmd, 0.0f, 1.0f);
    vk->cmd_set_rasterizer_discard(cmd, VK_FALSE);
    vk->cmd_set_depth_bias_enable(cmd, VK_FALSE);
    vk->cmd_set_primitive_restart(cmd, VK_FALSE);
    vk->cmd_set_polygon_mode(cmd, (VkPolygonMode)host->polygon_mode);
    if (colors > 0) {
      for (i = 0; i < colors; ++i) {
        const sbk_blend_attachment* a = &host->blend[i];
        enables[i] = a->enable ? VK_TRUE : VK_FALSE;
        equations[i].srcColorBlendFactor = (VkBlendFactor)a->src_color;
        equations[i].dstColorBlendFactor = (VkBlendFactor)a->dst_color;
        equations[i].colorBlendOp = (VkBlendOp)a->color_op;
        equations[i].srcAlphaBlendFactor = (VkBlendFactor)a->src_alpha;
        equations[i].dstAlphaBlendFactor = (VkBlendFactor)a->dst_alpha;
        equations[i].alphaBlendOp = (VkBlendOp)a->alpha_op;
        masks[i] = a->write_mask;
      }
      vk->cmd_set_blend_enable(cmd, 0, colors, enables);
      vk->cmd_set_blend_equation(cmd, 0, colors, equations);
      vk->cmd_set_write_mask(cmd, 0, colors, masks);
    }
    for (i = 0; i < host->binding_count && i < SBK_MAX_VERTEX_BINDINGS; ++i) {
      VkVertexInputBindingDescription2EXT* d = &bindings[binding_count++];
      memset(d, 0, sizeof *d);
      d->sType = VK_STRUCTURE_TYPE_VERTEX_INPUT_BINDING_DESCRIPTION_2_EXT;
      d->binding = host->bindings[i].binding;
      d->stride = host->bindings[i].stride;
      d->inputRate = (VkVertexInputRate)host->bindings[i].input_rate;
      d->divisor = 1;
    }
    for (i = 0; i < host->attribute_count && i < SBK_MAX_VERTEX_ATTRIBUTES; ++i) {
      VkVertexInputAttributeDescription2EXT* d = &attributes[attribute_count++];
      memset(d, 0, sizeof *d);
      d->sType = VK_STRUCTURE_TYPE_VERTEX_INPUT_ATTRIBUTE_DESCRIPTION_2_EXT;
      d->location = host->attributes[i].location;
      d->binding = host->attributes[i].binding;
      d->format = (VkFormat)host->attributes[i].format;
      d->offset = host->attributes[i].offset;
      if (host->attributes[i].location < 32) supplied |= 1u << host->attributes[i].location;
    }
    {
      VkVertexInputBindingDescription2EXT* d = &bindings[binding_count++];
      memset(d, 0, sizeof *d);
      d->sType = VK_STRUCTURE_TYPE_VERTEX_INPUT_BINDING_DESCRIPTION_2_EXT;
      d->binding = b->defaults_binding;
      d->stride = 0; /* every vertex reads the same default */
      d->inputRate = VK_VERTEX_INPUT_RATE_VERTEX;
      d->divisor = 1;
    }
    for (i = 0; i < SBK_VERTEX_LOCATIONS; ++i) {
      VkVertexInputAttributeDescription2EXT* d;
      if (!(r->location_mask >> i & 1u) || (supplied >> i & 1u)) continue;
      d = &attributes[attribute_count++];
      memset(d, 0, sizeof *d);
      d->sType = VK_STRUCTURE_TYPE_VERTEX_INPUT_ATTRIBUTE_DESCRIPTION_2_EXT;
      d->location = i;
      d->binding = b->defaults_binding;
      d->format = VK_FORMAT_R32G32B32A32_SFLOAT;
      d->offset = i * 16u;
    }
    vk->cmd_set_vertex_input(cmd, binding_count, bindings, attribute_count, attributes);
    vk->cmd_bind_vertex_buffers(cmd, b->defaults_binding, 1, &r->defaults_buffer, &zero);
  }
}

SBK_API sbk_result sbk_router_layout(const sbk_router* r, uint32_t layout_index, VkPipelineLayout* pipeline_layout,
                                     VkDescriptorSetLayout* set_layout) {
  SBK_ASSERT(r != NULL);
  if (layout_index >= r->layout_count) return SBK_NOT_FOUND;
  if (pipeline_layout) *pipeline_layout = r->pipeline_layouts[layout_index];
  if (set_layout) *set_layout = r->set_layouts[layout_index];
  return SBK_OK;
}

SBK_API void sbk_router_stats_get(const sbk_router* r, sbk_router_stats* out) {
  SBK_ASSERT(r != NULL && out != NULL);
  *out = r->stats;
  out->worker_cpu_ns = sbk__load_acquire(&r->worker_cpu_ns);
  out->worker_creations = sbk__load_acquire(&r->worker_creations);
  out->required_depth = sbk__ring_depth(&r->required);
  out->speculative_depth = sbk__ring_depth(&r->speculative);
  out->outstanding = (uint32_t)r->outstanding;
  out->refused_pending = (uint32_t)r->refused;
  out->fallback_pipelines = r->fallback_ready;
  out->dynamic_state = r->dynamic;
}

SBK_API const sbk_router_promotion* sbk_router_promotions(const sbk_router* r, uint32_t* count) {
  SBK_ASSERT(r != NULL && count != NULL);
  *count = r->promotion_count;
  return r->promotions;
}

SBK_API void sbk_router_destroy(sbk_router* r) {
  uint32_t i;
  uint64_t done[3];
  if (!r) return;
  sbk__fetch_add(&r->stopping, 1);
  if (r->own_pool) {
    sbk_thread_pool_destroy(r->own_pool);
    r->own_pool = NULL;
  }
  while (sbk__load_seq(&r->runs_finished) < sbk__load_seq(&r->runs_submitted)) sbk__yield();
  /* Finished and never adopted: nobody else holds these. */
  if (r->completions.cells)
    while (sbk__ring_pop(&r->completions, done))
      if (!(done[2] & SBK__SKIPPED_BIT) && sbk__handle_of(done[1])) r->vk.destroy_pipeline(r->device, sbk__handle_of(done[1]), NULL);
  if (r->states && r->vk.destroy_pipeline)
    for (i = 0; i < r->entry_count; ++i)
      if (r->states[i].pipeline) r->vk.destroy_pipeline(r->device, r->states[i].pipeline, NULL);
  if (r->recipe_pipelines && r->vk.destroy_pipeline)
    for (i = 0; i < r->recipe_count; ++i)
      if (r->recipe_pipelines[i]) r->vk.destroy_pipeline(r->device, r->recipe_pipelines[i], NULL);
  if (r->pipeline_layouts && r->vk.destroy_pipeline_layout)
    for (i = 0; i < r->layout_count; ++i)
      if (r->pipeline_layouts[i]) r->vk.destroy_pipeline_layout(r->device, r->pipeline_layouts[i], NULL);
  if (r->set_layouts && r->vk.destroy_set_layout)
    for (i = 0; i < r->layout_count; ++i)
      if (r->set_layouts[i]) r->vk.destroy_set_layout(r->device, r->set_layouts[i], NULL);
  if (r->defaults_buffer) r->vk.destroy_buffer(r->device, r->defaults_buffer, NULL);
  if (r->defaults_memory) r->vk.free_memory(r->device, r->defaults_memory, NULL);
  sbk__ring_free(&r->required);
  sbk__ring_free(&r->speculative);
  sbk__ring_free(&r->completions);
  SBK_ROUTER_FREE(r->states);
  SBK_ROUTER_FREE(r->claimed);
  SBK_ROUTER_FREE(r->retry_list);
  SBK_ROUTER_FREE(r->promotions);
  SBK_ROUTER_FREE(r->set_layouts);
  SBK_ROUTER_FREE(r->pipeline_layouts);
  SBK_ROUTER_FREE(r->key_scratch);
  SBK_ROUTER_FREE(r->recipes);
  SBK_ROUTER_FREE(r->recipe_pipelines);
  SBK_ROUTER_FREE(r->recipe_table);
  SBK_ROUTER_FREE(r);
}

#ifdef __cplusplus
}
#endif

#endif /* SHADERBAKE_ROUTER_IMPLEMENTATION_DONE */
#endif /* SHADERBAKE_IMPLEMENTATION */
