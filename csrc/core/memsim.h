/*
 * memsim.h -- the memory hierarchy every gpush model shares.
 *
 * Caches are tag-only (GATSim's "tag-only cache model"): set-associative,
 * true LRU, optionally sectored, with a write policy (memsim_cache.c).
 * Coalescing turns lane addresses into requests (memsim_coalesce.c).  The
 * functional mode (GPUMech Sec. V, memsim_functional.c) replays memory
 * instructions through per-SM L1s and a sliced L2 with no timing and
 * reports, per static PC, how often the instruction's slowest request was
 * an L1 hit, an L2 hit or a DRAM access, and the resulting average memory
 * access time (AMAT).  The timed mode (memsim_timed.c) tells the
 * simulator when each request returns, with MSHRs, L2 slice queues and
 * bandwidth-limited DRAM channels.  docs/memsim.md has the rules.
 *
 * Addresses enter as 128 B line indices (byte address >> 7, as the trace
 * reader's coalescer makes them) with a 4-bit mask of 32 B sectors.  The
 * op classes (GP_OP_*) and the kernel come from trace.h.
 */
#ifndef GP_MEMSIM_H
#define GP_MEMSIM_H

#include "trace.h"

/* ---------------------------------------------------------------------------
 * Tag-only set-associative cache
 * ------------------------------------------------------------------------- */

/* The trace's lines (trace_coalesce.c: line id = byte address >> 7): a
 * cache tag is one of them. */
#define GP_TRACE_LINE_BYTES 128u

typedef struct gp_cache_config {
  uint64_t size_bytes;   /* 0: no cache (every access misses, nothing kept) */
  uint32_t line_bytes;   /* 32, 64 or 128: the trace's lines are 128 B; a shorter
                            line is a fill granule of a 128 B entry */
  uint32_t ways;
  int sectored;          /* fill per 32 B sector instead of whole lines */
  int write_back;        /* 1: write-back + write-allocate; 0: write-through,
                            no write-allocate (GPGPU-Sim's L1 for globals) */
} gp_cache_config;

typedef struct gp_cache_stats {
  uint64_t accesses, hits, misses;  /* per request (line) */
  uint64_t sector_misses;           /* line present, some sectors missing */
  uint64_t writebacks;              /* dirty lines evicted */
} gp_cache_stats;

typedef struct gp_cache {
  gp_alloc alloc;
  gp_cache_config config;
  uint32_t sets;
  /* Per set: how many ways are filled (ways fill in order and are never
   * invalidated, so the invalid ones are [filled, ways)), its most and
   * least recent way (true LRU as a recency list, most recent first) and
   * its record's offset in bytes from `records` (an offset, not a slot
   * number: no multiplication on the way to a lookup's first load); only
   * the fill counts start at zero, the rest is written at the set's first
   * fill. */
  uint16_t *filled, *mru, *lru;
  uint32_t *slot;
  /* The sets' records, one per set that has filled a way, in the order of
   * their first fill (gp_cache_init's comment): per way its hint (a
   * one-byte hash of its line, hint_of in memsim_cache.c: a lookup compares
   * 16 ways' hints at once and reads a tag only where a hint matches), its
   * valid sectors and dirty bit, its neighbours in the recency list (way
   * numbers within the set) and its tag (line index + 1), each field an
   * array over the set's ways.  Ways a set has not filled are not
   * initialised and never read (their hints are read and masked off). */
  uint8_t *records;
  uint32_t record_bytes;  /* one set's record, a multiple of 8 */
  uint32_t newer_offset, tags_offset; /* those fields' bytes into a record */
  uint32_t records_used;  /* slots handed out so far */
  uint32_t set_mask;  /* sets - 1 when sets is a power of two, else 0 */
  uint8_t fill[16];   /* gp_cache_fill_mask of each four-sector mask */
  gp_cache_stats stats;
  /* the last access: the way it used (set x ways + way within the set; -1:
   * none, e.g. a write-through write miss; set by gp_cache_access only) and
   * its victim (evicted = 1 when a valid line left the cache); the timed
   * model reads them from gp_cache_lookup's outcome instead */
  int64_t way;
  uint8_t missing;    /* requested sectors that were not valid (to fetch) */
  int evicted, evicted_dirty;
  uint64_t evicted_line;
  uint8_t evicted_sectors;
} gp_cache;

typedef enum gp_cache_result {
  GP_CACHE_HIT,
  GP_CACHE_MISS,        /* line absent */
  GP_CACHE_SECTOR_MISS  /* line present, some requested sectors absent */
} gp_cache_result;

int gp_cache_init(gp_cache *c, const gp_alloc *alloc, const gp_cache_config *config,
                  gp_error *err);
void gp_cache_free(gp_cache *c);
/* dst = a copy of src with its own allocation (free it with gp_cache_free);
 * reuse: dst is a cache set up before (by gp_cache_init or gp_cache_copy),
 * whose block is reused when it has src's shape and freed otherwise.  On
 * failure dst holds no allocation. */
int gp_cache_copy(gp_cache *dst, const gp_cache *src, int reuse, gp_error *err);
/* The set a line maps to: line index modulo the number of sets. */
uint32_t gp_cache_set_of(const gp_cache *c, uint64_t line);
/* Looks up a line for the sectors in `mask`; reads fill it (LRU victim),
 * writes follow the write policy.  Returns the result for the request and
 * records any eviction in evicted / evicted_line / evicted_dirty. */
gp_cache_result gp_cache_access(gp_cache *c, uint64_t line, uint8_t mask, int is_write);

/* The 32 B sectors of a 128 B trace line that a fill for the sectors in
 * `mask` brings into a cache configured as `c`: the requested ones when it
 * is sectored; otherwise every sector of the cache lines the request
 * touches (a 128 B line: all four; a 64 B line, half a trace line: the
 * halves touched; a 32 B line: the sectors themselves). */
uint8_t gp_cache_fill_mask(const gp_cache_config *c, uint8_t mask);
/* Whether a line is present (no state change), for tests. */
int gp_cache_contains(const gp_cache *c, uint64_t line);

/* ---------------------------------------------------------------------------
 * Coalescing, shared memory (memsim_coalesce.c)
 * ------------------------------------------------------------------------- */

/* The 128 B line coalescer over a lane mask: addrs has 32 entries, one per
 * lane, bit l of `active` says whether lane l accesses memory.  Writes one
 * request per distinct line (line index = address >> 7) with the mask of
 * 32 B sectors it touches; returns the count, or -1 when more than `cap`
 * lines would be needed (gp_coalesce does the work on the packed lanes). */
int gp_coalesce_active(const uint64_t *addrs, uint32_t active, uint32_t width,
                       uint64_t *lines, uint8_t *masks, uint32_t cap);

/* Passes a shared-memory access needs: bank = (offset / bank_bytes) mod
 * banks; lanes hitting one bank at different words serialise; lanes reading
 * the same word are served together (broadcast).  Returns the largest number
 * of distinct words in one bank (1: conflict-free; passes - 1 are the bank
 * conflicts). */
uint32_t gp_shared_passes(const uint64_t *offsets, uint32_t n, uint32_t width,
                          uint32_t banks, uint32_t bank_bytes);

/* The two compute capability 1.x coalescing rules (cc1x fields below). */
enum { GP_CC1X_OFF = 0, GP_CC1X_12 = 1, GP_CC1X_10 = 2 };

/* Compute capability 1.2/1.3 coalescing of one half-warp (CUDA C Programming
 * Guide 4.2, App. F.3.2.2): for each segment touched (32 B for 1-byte words,
 * 64 B for 2-byte, 128 B for 4-, 8- and 16-byte words), one transaction,
 * reduced to 64 or 32 B when only its lower or upper half (or quarter) is
 * used.  Writes transaction addresses and sizes; returns the count (<= 16). */
uint32_t gp_coalesce_cc1x(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *txn_addr, uint32_t *txn_bytes);

/* Compute capability 1.0/1.1, the strict rule (App. F.3.2.1): 4-, 8- or
 * 16-byte words, the k-th lane reading the k-th word of one aligned 64 B
 * (4-byte) or 128 B (8-byte) segment, or of two consecutive 128 B segments
 * (16-byte): one 64 B, one 128 B or two 128 B transactions; anything else
 * one 32 B transaction per lane.  Returns the count (<= 16). */
uint32_t gp_coalesce_cc10(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *txn_addr, uint32_t *txn_bytes);

/* A warp's CC 1.x transactions as line requests (line index and the 32 B
 * sectors each transaction covers), half-warp by half-warp: addresses 0-15
 * then 16-31 in lane order (the trace keeps active lanes' addresses in
 * order, so with inactive lanes the split is approximate).  rule:
 * GP_CC1X_12 or GP_CC1X_10.  Returns the count (at most 32). */
uint32_t gp_cc1x_requests_rule(const uint64_t *addrs, uint32_t n, uint32_t width, int rule,
                               uint64_t *lines, uint8_t *masks);
/* The same with the CC 1.2/1.3 rule. */
uint32_t gp_cc1x_requests(const uint64_t *addrs, uint32_t n, uint32_t width,
                          uint64_t *lines, uint8_t *masks);

/* ---------------------------------------------------------------------------
 * Functional mode (GPUMech Sec. V)
 * ------------------------------------------------------------------------- */

typedef struct gp_memsim_config {
  uint32_t sms;
  uint32_t blocks_per_sm;      /* co-resident blocks (occupancy) */
  gp_cache_config l1, l2;      /* l2.size_bytes is the total over slices */
  uint32_t l2_slices;
  int cache_global_in_l1;      /* 0: global loads bypass L1 (Kepler default) */
  uint32_t dram_access_bytes;  /* what one DRAM request moves (32) */
  double l1_latency, l2_latency, dram_latency; /* cycles; l1/l2 totals, dram
                                                  the increment beyond L2 */
  int cc1x;                    /* GP_CC1X_OFF, GP_CC1X_12 (1.2/1.3 rule) or
                                  GP_CC1X_10 (1.0/1.1 strict rule) */
  uint32_t shared_banks, shared_bank_bytes;
  double shared_latency;       /* cycles, a conflict-free access */
  double const_latency;        /* cycles: the constant cache, always a hit
                                  (traces carry no constant addresses) */
} gp_memsim_config;

/* Buckets of gp_pc_memory.miss_reuse: bucket b counts the L1-missing load
 * requests whose line the same SM's previous L1-missing load requests
 * asked for d requests earlier, 2^b <= d < 2^(b+1) (d < 8192). */
#define GP_REUSE_BUCKETS 13

/* Per static PC. */
typedef struct gp_pc_memory {
  uint64_t instructions;       /* dynamic memory instructions at this PC */
  uint64_t l1_hits, l2_hits, dram; /* by each instruction's slowest request */
  uint64_t requests;           /* line requests */
  uint64_t l1_miss_requests;   /* load requests that missed L1 (MSHR users) */
  uint64_t dram_requests;      /* DRAM accesses this PC caused: fills, write-throughs
                                  and the dirty victims it evicted */
  double amat;                 /* cycles: l1 x L1 + l2 x L2 + dram x (L2 + DRAM),
                                  averaged; shared-memory and constant PCs:
                                  their latency */
  uint64_t shared_passes;      /* shared-memory PCs: bank passes, summed */
  /* How recently the SM missed on the same line (GP_REUSE_BUCKETS): with m
   * MSHRs, a request whose line is among the SM's last m misses finds it
   * still outstanding and merges (the timed mode's MSHR merge), taking no
   * entry of its own.  Lines tracked in a direct-mapped table of
   * GP_REUSE_TABLE entries per SM, so a collision can hide a reuse. */
  uint64_t miss_reuse[GP_REUSE_BUCKETS];
} gp_pc_memory;

/* Entries per SM of the functional mode's recent-miss table. */
#define GP_REUSE_TABLE 4096

typedef struct gp_memsim_result {
  gp_pc_memory *pcs;           /* kernel.static_count entries */
  uint32_t pc_count;
  uint64_t load_l1_misses;     /* load and atomic requests that miss L1 */
  uint64_t mshr_requests;      /* load requests (not atomics) that miss L1: the
                                  timed mode gives each an MSHR unless it merges */
  uint64_t mshr_dram_requests; /* ... of which also miss L2 */
  uint64_t dram_requests;      /* requests reaching DRAM, stores included */
  uint64_t dram_bytes_read, dram_bytes_written;
  uint64_t bank_conflicts;     /* shared-memory passes beyond the first */
  uint64_t l1_bytes;           /* 32-byte sectors every cache-using request asks of
                                  its SM's L1/TEX stage (cached there or not) */
  uint64_t l2_bytes;           /* sectors reaching the L2: loads and atomics L1 did
                                  not serve, stores, dirty L1 victims */
  gp_cache_stats l1, l2;       /* summed over SMs / slices */
} gp_memsim_result;

/* The functional model over a generic access stream: the caller replays
 * memory instructions in the order it chooses (GPUMech's: round-robin over
 * the warps of every SM's co-resident blocks, wave by wave), and the model
 * counts per static PC.  gp_memsim_functional is this API driven by a
 * kernel in gp_memsim_order's order. */
typedef struct gp_func gp_func;

int gp_func_new(gp_func **out, const gp_alloc *alloc, const gp_memsim_config *config,
                uint32_t pc_count, gp_error *err);
void gp_func_free(gp_func *f);
/* One cache-using memory instruction (op_class: GP_OP_LD_GLOBAL,
 * GP_OP_ST_GLOBAL, GP_OP_LD_LOCAL, GP_OP_ST_LOCAL, GP_OP_TEX,
 * GP_OP_ATOM_GLOBAL, GP_OP_LDGSTS) at static PC `pc` of a warp on SM `sm`,
 * with its line requests.  Loads go through the SM's L1 when it caches them
 * (local, texture, and global when cache_global_in_l1), then the L2 slice;
 * the instruction counts at the level of its slowest request.  An
 * instruction with no request counts nothing. */
int gp_func_access(gp_func *f, uint32_t pc, uint32_t sm, int op_class, const uint64_t *lines,
                   const uint8_t *masks, uint32_t n, gp_error *err);
/* A shared-memory instruction at `pc`: its bank passes (lane offsets). */
int gp_func_shared(gp_func *f, uint32_t pc, const uint64_t *offsets, uint32_t n,
                   uint32_t width, gp_error *err);
/* A constant load at `pc`: always a hit at const_latency. */
int gp_func_const(gp_func *f, uint32_t pc, gp_error *err);
/* The counts so far with each PC's AMAT, in a new result (free with
 * gp_memsim_result_free); the model stays usable. */
int gp_func_result(gp_func *f, gp_memsim_result *out, gp_error *err);

/* The replay order of GPUMech Sec. V: blocks go to SMs round-robin, every SM
 * runs waves of `blocks_per_sm` blocks, and within a wave the warps of all
 * SMs' co-resident blocks advance round-robin, one memory instruction each
 * per turn.  Calls visit(ctx, instruction index, sm) for every instruction
 * that reaches the caches. */
typedef void (*gp_memsim_visit)(void *ctx, uint64_t inst, uint32_t sm);
/* The first instruction in [i, end) with a memory record (k->mem not
 * UINT32_MAX), or end: the scans over a kernel's instructions for its
 * memory ones (most have none) read k->mem four entries at a time. */
uint64_t gp_next_memory_record(const gp_kernel *k, uint64_t i, uint64_t end);
int gp_memsim_order(const gp_kernel *k, uint32_t sms, uint32_t blocks_per_sm,
                    const gp_alloc *alloc, gp_memsim_visit visit, void *ctx, gp_error *err);

/* Replays the kernel's global/local/texture memory instructions through
 * gp_func in gp_memsim_order's order (cc1x: per-half-warp transactions for
 * global and local accesses instead of the trace's lines), then its
 * shared-memory and constant instructions. */
int gp_memsim_functional(const gp_kernel *k, const gp_memsim_config *config,
                         const gp_alloc *alloc, gp_memsim_result *out, gp_error *err);
void gp_memsim_result_free(gp_memsim_result *r, const gp_alloc *alloc);
/* A cache-using PC's average memory access time from its level counts:
 * (l1_hits x L1 + l2_hits x L2 + dram x (L2 + DRAM)) / instructions
 * (memsim_functional.c; the replay's result and an extrapolated one). */
double gp_pc_cache_amat(const gp_pc_memory *pc, const gp_memsim_config *cfg);
/* The result of a launch from the results a and b of two prefixes of its
 * blocks, b the longer: every count b + (b - a) x f, and each cache-using
 * PC's AMAT from its extrapolated levels (memsim_sample.c; gpush.sampling). */
int gp_memsim_result_extrapolate(const gp_kernel *k, const gp_memsim_config *cfg,
                                 const gp_memsim_result *a, const gp_memsim_result *b, double f,
                                 const gp_alloc *alloc, gp_memsim_result *out, gp_error *err);

/* What a kernel's functional replays share whatever the configuration
 * (memsim_functional.c): each warp's cache-using memory instructions in
 * order (a replay visits them without scanning the kernel), and each static
 * PC's shared-memory and constant instructions with their bank passes (a
 * sweep's occupancies keep the banks; the passes are counted again only
 * when the banks change).  A sweep replays a kernel at several occupancies
 * with one (gpush.memsim.replay keeps it in the sweep's kernel cache). */
typedef struct gp_memsim_prep gp_memsim_prep;
int gp_memsim_prep_new(gp_memsim_prep **out, const gp_kernel *k, const gp_alloc *alloc,
                       gp_error *err);
void gp_memsim_prep_free(gp_memsim_prep *p);
/* Whether p was made from kernel k (by identity and shape). */
int gp_memsim_prep_of(const gp_memsim_prep *p, const gp_kernel *k);
/* gp_memsim_functional through p (made from k: gp_memsim_prep_of), the
 * same result bit for bit; p keeps the bank passes of config's banks. */
int gp_memsim_functional_prepared(const gp_kernel *k, gp_memsim_prep *p,
                                  const gp_memsim_config *config, const gp_alloc *alloc,
                                  gp_memsim_result *out, gp_error *err);

/* A replay carried across prefixes of one kernel (gpush.sampling's samples
 * of w, 2w, 4w, ... full waves, each ending with the launch's partial
 * wave): the model after the full waves replayed so far.  A longer prefix
 * goes on from them, replays its partial wave on a copy and leaves its own
 * full waves for the next: the samples replay 4w full waves instead of 7w.
 * The caller keeps one carry per configuration (a carry made at another
 * occupancy or of another kernel's prefixes is not used: the replay starts
 * again from the first wave). */
typedef struct gp_memsim_carry gp_memsim_carry;
gp_memsim_carry *gp_memsim_carry_new(void);
void gp_memsim_carry_free(gp_memsim_carry *c);
/* gp_memsim_functional_prepared of k (a prefix of some kernel, or the
 * kernel itself) through the carry: the same result bit for bit. */
int gp_memsim_functional_carried(const gp_kernel *k, gp_memsim_prep *p,
                                 const gp_memsim_config *config, gp_memsim_carry *carry,
                                 const gp_alloc *alloc, gp_memsim_result *out, gp_error *err);

/* ---------------------------------------------------------------------------
 * Timed mode (the abstract simulator's memory)
 * ------------------------------------------------------------------------- */

typedef struct gp_timed_config {
  uint32_t sms;
  uint32_t mshrs_per_sm;       /* L1 misses outstanding per SM; same-line requests merge */
  gp_cache_config l1, l2;      /* l2.size_bytes is the total over slices */
  uint32_t l2_slices;
  int cache_global_in_l1;
  double l1_latency, l2_latency; /* cycles, load-to-use totals */
  double dram_latency;         /* cycles beyond an L2 miss */
  double l2_interval;          /* cycles a slice needs per request */
  uint32_t dram_channels;
  double dram_bytes_per_cycle; /* all channels together, per core cycle */
  uint32_t dram_access_bytes;
  int cc1x;                    /* the replay driver coalesces per half-warp */
} gp_timed_config;

/* A one-request-at-a-time resource's reserved intervals [from, to), sorted
 * and disjoint (memsim_calendar.c): a request takes the earliest gap at or
 * after its ready cycle that is long enough (first fit). */
typedef struct gp_span {
  double from, to;
} gp_span;

/* Intervals a chunk holds: 32 rather than 64 makes the search inside a
 * chunk a step shorter and an insertion's move half as long, for a few more
 * chunks (divergent_gather on gtx660ti: the timed model -1.4 %). */
#define GP_CALENDAR_CHUNK 32
typedef struct gp_span_chunk gp_span_chunk;

typedef struct gp_chunk_ref {
  gp_span_chunk *chunk;
  double end;                  /* its last interval's end (searched without a dereference) */
} gp_chunk_ref;

typedef struct gp_calendar {
  gp_chunk_ref *dir;           /* chunks in time order, none empty */
  uint32_t count, cap;         /* chunks in use, directory capacity */
  gp_span_chunk *spare;        /* the last chunk dropped, kept for the next one needed */
  double min_length;           /* no request is shorter */
  double now;                  /* the latest submission cycle: intervals that ended
                                  by then are over (dropped a chunk at a time) */
  uint32_t finger;             /* the chunk the last search started in: the next
                                  search tries it first (checked, may be stale) */
} gp_calendar;

/* An empty calendar for requests of at least min_length cycles (gaps
 * shorter than that are closed).  Allocates nothing until a reservation. */
void gp_calendar_init(gp_calendar *c, double min_length);
void gp_calendar_free(gp_calendar *c, const gp_alloc *alloc);
/* Reserves `length` (>= min_length) cycles for a request ready at `ready`
 * (>= now, the current submission cycle; intervals ended by `now` are
 * dropped) and returns their start in *start.  GP_ERR only when out of
 * memory. */
int gp_calendar_reserve(gp_calendar *c, const gp_alloc *alloc, double now, double ready,
                        double length, double *start);
/* The reserved intervals that have not ended (for tests): how many, and the
 * k-th in time order. */
size_t gp_calendar_intervals(const gp_calendar *c);
gp_span gp_calendar_interval(const gp_calendar *c, size_t k);

typedef struct gp_timed_stats {
  gp_cache_stats l1, l2;
  uint64_t mshr_merges, mshr_full_stalls;
  double mshr_stall_cycles;
  uint64_t l2_fill_waits;      /* L2 hits that found the line's fill under way */
  uint64_t l2_early_arrivals;  /* of those, the ones the slice accepted before the
                                  fill's own requester: they fetch the line themselves */
  uint64_t dram_duplicate_bytes; /* bytes those fetches read again (in dram_bytes_read) */
  uint64_t dram_bytes_read, dram_bytes_written;
  double last_dram_done;       /* when the last DRAM transfer ended */
  uint64_t dram_transfers;     /* fills and write-backs scheduled */
  double first_dram_start;     /* when the first DRAM transfer began */
  double window_from, window_to; /* gp_timed_set_window's window */
  double window_bytes;         /* DRAM bytes moved inside it (transfers
                                  overlapping an edge count pro rata) */
} gp_timed_stats;

typedef struct gp_timed gp_timed;

int gp_timed_new(gp_timed **out, const gp_alloc *alloc, const gp_timed_config *config,
                 gp_error *err);
void gp_timed_free(gp_timed *t);
/* Submits one memory instruction of SM `sm` issued at cycle `now` (calls in
 * non-decreasing `now`), with its line requests.  done[j] receives the cycle
 * request j's data returns (stores: when the L2 accepts it); *complete the
 * instruction's completion, its last request.  Event-driven: no per-cycle
 * work; L2 slices and DRAM channels keep calendars of reserved intervals
 * (requests may be ready out of submission order), MSHRs a release heap. */
int gp_timed_submit(gp_timed *t, uint32_t sm, double now, int op_class,
                    const uint64_t *lines, const uint8_t *masks, uint32_t n,
                    double *done, double *complete, gp_error *err);
/* Counters so far, L1/L2 summed over SMs and slices. */
const gp_timed_stats *gp_timed_stats_of(gp_timed *t);
/* Sets the window [from, to) (cycles) in which DRAM bytes are counted for
 * gp_timed_window_bandwidth; call before submitting the requests of
 * interest (transfers are counted when they are scheduled). */
int gp_timed_set_window(gp_timed *t, double from, double to, gp_error *err);
/* Achieved DRAM bandwidth in bytes per core cycle inside the window
 * (0 without a window). */
double gp_timed_window_bandwidth(const gp_timed_stats *s);
/* Achieved DRAM bandwidth in bytes per core cycle from the first transfer's
 * start to the last one's end (0 before any transfer). */
double gp_timed_achieved_bandwidth(const gp_timed_stats *s);
/* Bytes a store moves to DRAM through a write-through L2 (the sectors of
 * `mask`), and bytes an L2 fill or write-back of the sectors of `mask`
 * moves (the whole line when the L2 is not sectored), in whole
 * dram_access_bytes units: the timed mode's DRAM charges, which the hard
 * DRAM bound (bounds.c) counts with. */
uint32_t gp_sector_count(uint8_t mask); /* the 32 B sectors a 4-bit mask names */
uint64_t gp_timed_store_bytes(const gp_timed_config *cfg, uint8_t mask);
uint64_t gp_timed_fill_bytes(const gp_timed_config *cfg, uint8_t mask);

/* Drives the timed model with a kernel in the functional mode's order, each
 * SM issuing one memory instruction per cycle (a benchmark driver and a
 * smoke test; the simulator issues by its own schedule).  Returns the
 * counters, the line requests made and the cycle the last one returned. */
int gp_memsim_timed_replay(const gp_kernel *k, const gp_timed_config *cfg,
                           uint32_t blocks_per_sm, const gp_alloc *alloc,
                           gp_timed_stats *stats, uint64_t *requests, double *last_cycle,
                           gp_error *err);

/* The L2 slice of a line: XOR-fold the line index (h ^= h >> 7, >> 13,
 * >> 23), then modulo the slice count (a mask when it is a power of two),
 * so power-of-two strides that a plain modulo would send to one slice
 * spread over all of them, as GPGPU-Sim's hashed partition indexing does.
 * Inline: both replays ask it once per L2 request. */
static inline uint32_t gp_l2_slice_of(uint64_t line, uint32_t slices) {
  uint64_t h = line;
  if (slices <= 1)
    return 0;
  h ^= h >> 7;
  h ^= h >> 13;
  h ^= h >> 23;
  if ((slices & (slices - 1)) == 0)
    return (uint32_t)(h & (slices - 1));
  /* the same remainder by a 32-bit division where h fits (every line of
   * an address below 512 GB), cheaper than the 64-bit one on x86 */
  return h <= UINT32_MAX ? (uint32_t)h % slices : (uint32_t)(h % slices);
}

#endif
