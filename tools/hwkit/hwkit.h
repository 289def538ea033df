// hwkit.h -- what every microbenchmark of gpush's hardware kit shares.
//
// Each benchmark is one .cu file with a main() that runs its cases and
// prints one raw record per case on stdout (docs/hwkit.md, "Raw output"):
//
//   row<TAB>key=value<TAB>key=value...
//
// tools/hwkit/tocsv.awk turns those records into the measured CSV of
// `gpush correlate`.  Progress and warnings go to stderr.
//
// Timing, for every case (docs/hwkit.md, "How a case is timed"):
//   - the kernel the gpush description models (the "plain" variant) is
//     launched `reps` times, each launch alone between two CUDA events
//     (event_us: the median; event_min_us: the fastest), then `batch` times
//     back to back between two events (batch_us: per launch);
//   - where the case has one, a "clocked" variant of the same kernel records
//     clock64() and %globaltimer at the start and end of the measured work
//     (ClockRec), from which come the in-kernel cycle counts and the SM clock
//     during the kernel (kernel_mhz = clock64 cycles / globaltimer ns);
//   - a one-thread probe kernel spins 1 ms before and after the case and
//     measures the SM clock the same way (probe_mhz).
// core_mhz is kernel_mhz where the clocked kernel ran long enough to measure
// it (at least 1 ms of globaltimer summed over its records), else the probe's.
// Nothing here sets a clock or any other device setting.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace hwkit {

// Exit codes the runner (tools/hwkit/run.sh) acts on.
constexpr int EXIT_CUDA = 2;      // any other CUDA failure
constexpr int EXIT_DRIVER = 3;    // the driver is older than the CUDA runtime built in
constexpr int EXIT_NO_IMAGE = 4;  // no kernel image for this GPU's architecture

inline const char *&bench_name() {
  static const char *name = "hwkit";
  return name;
}

// A CUDA version number (12040) as text ("12.4").
inline std::string cuda_version_text(int v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
  return buf;
}

// Reports a failed CUDA call and exits with the code the runner expects:
// EXIT_DRIVER when the installed driver cannot run this runtime (the runner
// then rebuilds with the device's own nvcc), EXIT_NO_IMAGE when the binary
// has no code for this GPU, EXIT_CUDA otherwise.
[[noreturn]] inline void fail_cuda(cudaError_t e, const char *what, const char *file, int line) {
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::fprintf(stderr, "hwkit %s: %s failed (%s:%d): %s: %s\n", bench_name(), what, file, line,
               cudaGetErrorName(e), cudaGetErrorString(e));
  if (e == cudaErrorInsufficientDriver) {
    if (driver == 0)
      std::fprintf(stderr, "hwkit %s: no NVIDIA driver could be loaded (libcuda.so): is this a GPU machine?\n",
                   bench_name());
    else
      std::fprintf(stderr,
                   "hwkit %s: the installed driver supports CUDA %s; this binary was built with CUDA runtime %s: "
                   "rebuild the kit with this machine's nvcc (bash tools/hwkit/build.sh) or update the driver\n",
                   bench_name(), cuda_version_text(driver).c_str(), cuda_version_text(CUDART_VERSION).c_str());
    std::exit(EXIT_DRIVER);
  }
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorUnsupportedPtxVersion ||
      e == cudaErrorInvalidKernelImage) {
    std::fprintf(stderr, "hwkit %s: rebuild the kit for this GPU (bash tools/hwkit/build.sh --arch native)\n",
                 bench_name());
    std::exit(EXIT_NO_IMAGE);
  }
  std::exit(EXIT_CUDA);
}

#define HWKIT_CHECK(call)                                                  \
  do {                                                                     \
    cudaError_t hwkit_e_ = (call);                                         \
    if (hwkit_e_ != cudaSuccess)                                           \
      hwkit::fail_cuda(hwkit_e_, #call, __FILE__, __LINE__);               \
  } while (0)

// After a launch: the launch's own error (bad configuration, no image).
#define HWKIT_LAUNCHED() HWKIT_CHECK(cudaGetLastError())

[[noreturn]] inline void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "hwkit %s: ", bench_name());
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  std::exit(1);
}

// ---------------------------------------------------------------------------
// Device side: clocks
// ---------------------------------------------------------------------------

// One record of the clocked variants: SM cycles (clock64) and globaltimer
// nanoseconds at the start and end of the measured work, and the SM.
struct ClockRec {
  long long clk0, clk1;
  unsigned long long ns0, ns1;
  unsigned sm, pad;
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Start and end marks of a clocked variant, kept in registers.
struct Mark {
  long long clk;
  unsigned long long ns;
};

__device__ __forceinline__ Mark mark() {
  Mark m;
  m.ns = global_ns();
  m.clk = clock64();
  return m;
}

__device__ __forceinline__ void store_rec(ClockRec *r, Mark a, Mark b) {
  r->clk0 = a.clk;
  r->clk1 = b.clk;
  r->ns0 = a.ns;
  r->ns1 = b.ns;
  r->sm = sm_id();
  r->pad = 0;
}

// The SM clock probe: one thread spins for `span_ns` of globaltimer (or, if
// that timer stood still, for 8 x span_ns cycles: never forever).
__global__ void probe_kernel(ClockRec *r, unsigned long long span_ns) {
  Mark a = mark(), b;
  do {
    b = mark();
  } while (b.ns - a.ns < span_ns && b.clk - a.clk < 8 * (long long)span_ns);
  store_rec(r, a, b);
}

// Keeps every SM busy for about `span_ns` (the clocks settle at their
// loaded frequency before measuring).
__global__ void busy_kernel(unsigned long long span_ns, float *sink) {
  unsigned long long t0 = global_ns();
  long long c0 = clock64();
  float x = threadIdx.x;
  while (global_ns() - t0 < span_ns && clock64() - c0 < 8 * (long long)span_ns) {
#pragma unroll 16
    for (int i = 0; i < 64; i++)
      x = fmaf(x, 0.999f, 0.001f);
  }
  if (x == -1.0f)
    *sink = x;
}

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------

struct Options {
  int reps = 15;      // single timed launches per case
  int batch = 15;     // back-to-back launches per case
  bool quick = false; // fewer cases (a smoke run)
};

// The device and what every case needs.
struct Kit {
  cudaDeviceProp prop;
  int sms = 0;
  Options opt;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  ClockRec *probe_rec = nullptr;
  float *sink = nullptr;
  double null_us = 0; // two events with nothing between them (median)
};

inline double median(std::vector<double> v) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline double elapsed_us(const Kit &k) {
  float ms = 0;
  HWKIT_CHECK(cudaEventElapsedTime(&ms, k.e0, k.e1));
  return 1000.0 * ms;
}

// The SM clock in MHz from one run of the probe kernel.
inline double probe_mhz(Kit &k, unsigned long long span_ns = 1000000ull) {
  probe_kernel<<<1, 1>>>(k.probe_rec, span_ns);
  HWKIT_LAUNCHED();
  HWKIT_CHECK(cudaDeviceSynchronize());
  ClockRec r;
  HWKIT_CHECK(cudaMemcpy(&r, k.probe_rec, sizeof r, cudaMemcpyDeviceToHost));
  return r.ns1 > r.ns0 ? 1000.0 * double(r.clk1 - r.clk0) / double(r.ns1 - r.ns0) : NAN;
}

inline void busy(Kit &k, double ms) {
  busy_kernel<<<k.sms * 4, 256>>>((unsigned long long)(ms * 1e6), k.sink);
  HWKIT_LAUNCHED();
  HWKIT_CHECK(cudaDeviceSynchronize());
}

// Options: --reps N, --batch N, --quick.
inline Kit init(const char *bench, int argc, char **argv) {
  bench_name() = bench;
  Kit k;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      k.opt.reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc)
      k.opt.batch = std::max(0, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--quick"))
      k.opt.quick = true;
    else
      fail("unknown option '%s' (expected --reps N, --batch N, --quick)", argv[i]);
  }
  int count = 0;
  HWKIT_CHECK(cudaGetDeviceCount(&count));
  if (count == 0)
    fail("no CUDA device");
  HWKIT_CHECK(cudaSetDevice(0));
  HWKIT_CHECK(cudaGetDeviceProperties(&k.prop, 0));
  k.sms = k.prop.multiProcessorCount;
  HWKIT_CHECK(cudaEventCreate(&k.e0));
  HWKIT_CHECK(cudaEventCreate(&k.e1));
  HWKIT_CHECK(cudaMalloc(&k.probe_rec, sizeof(ClockRec)));
  HWKIT_CHECK(cudaMalloc(&k.sink, sizeof(float)));
  std::fprintf(stderr, "hwkit %s: %s, %d SMs, compute capability %d.%d\n", bench, k.prop.name, k.sms,
               k.prop.major, k.prop.minor);
  busy(k, 200.0); // the clocks leave their idle state before anything is timed
  std::vector<double> nulls;
  for (int i = 0; i < 15; i++) {
    HWKIT_CHECK(cudaEventRecord(k.e0));
    HWKIT_CHECK(cudaEventRecord(k.e1));
    HWKIT_CHECK(cudaEventSynchronize(k.e1));
    nulls.push_back(elapsed_us(k));
  }
  k.null_us = median(nulls);
  return k;
}

struct Timing {
  double median_us = NAN, min_us = NAN, batch_us = NAN;
  int reps = 0;
};

// Times `launch` (which launches the plain kernel once): reps single
// launches, each between two events, then `batch` launches back to back.
// `before` runs ahead of each single launch, outside the events (an L2
// flush); with a `before`, batch timing is skipped (it would time it too).
template <class Launch, class Before>
Timing time_launches(Kit &k, Launch launch, Before before, bool has_before) {
  Timing t;
  launch(); // warm-up: code loaded, caches of instructions warm
  HWKIT_LAUNCHED();
  HWKIT_CHECK(cudaDeviceSynchronize());
  std::vector<double> us;
  for (int r = 0; r < k.opt.reps; r++) {
    before();
    HWKIT_CHECK(cudaEventRecord(k.e0));
    launch();
    HWKIT_LAUNCHED();
    HWKIT_CHECK(cudaEventRecord(k.e1));
    HWKIT_CHECK(cudaEventSynchronize(k.e1));
    us.push_back(elapsed_us(k));
  }
  t.reps = int(us.size());
  t.median_us = median(us);
  t.min_us = *std::min_element(us.begin(), us.end());
  if (!has_before && k.opt.batch > 0) {
    HWKIT_CHECK(cudaEventRecord(k.e0));
    for (int b = 0; b < k.opt.batch; b++)
      launch();
    HWKIT_LAUNCHED();
    HWKIT_CHECK(cudaEventRecord(k.e1));
    HWKIT_CHECK(cudaEventSynchronize(k.e1));
    t.batch_us = elapsed_us(k) / k.opt.batch;
  }
  return t;
}

template <class Launch>
Timing time_launches(Kit &k, Launch launch) {
  return time_launches(k, launch, [] {}, false);
}

// What the clocked variant's records say.
struct ClockStats {
  int n = 0;
  double clk_median = NAN; // median of clk1 - clk0 over the records
  double clk_max = NAN;
  double kernel_mhz = NAN; // sum of cycles / sum of ns, records of >= 100 us
  double timed_ns = 0;     // the ns that kernel_mhz rests on
  double span_us = NAN;    // first start to last end, globaltimer
};

inline ClockStats clock_stats(const std::vector<ClockRec> &recs) {
  ClockStats s;
  std::vector<double> c;
  double cyc = 0, ns = 0;
  unsigned long long first = ~0ull, last = 0;
  for (const ClockRec &r : recs) {
    if (r.ns1 == 0)
      continue; // not written
    c.push_back(double(r.clk1 - r.clk0));
    first = std::min(first, r.ns0);
    last = std::max(last, r.ns1);
    if (r.ns1 - r.ns0 >= 100000ull) {
      cyc += double(r.clk1 - r.clk0);
      ns += double(r.ns1 - r.ns0);
    }
  }
  s.n = int(c.size());
  if (s.n == 0)
    return s;
  s.clk_median = median(c);
  s.clk_max = *std::max_element(c.begin(), c.end());
  s.span_us = (last - first) / 1000.0;
  if (ns > 0) {
    s.kernel_mhz = 1000.0 * cyc / ns;
    s.timed_ns = ns;
  }
  return s;
}

// Work done per SM cycle, the median over the SMs that ran records: each SM's
// records (one a block) did `work_per_rec` units each, over that SM's span
// from its first record's start to its last one's end.  clock64 is one
// counter per SM, so a span is taken within one SM only.  Blocks of a wave
// need not all run at once (a block's own cycles can be a fraction of its
// SM's), so a rate per SM is the SM's work over the SM's time, never over one
// block's.
inline double per_sm_rate(const std::vector<ClockRec> &recs, double work_per_rec) {
  struct Sm {
    long long first = 0, last = 0;
    int n = 0;
  };
  std::vector<Sm> sms;
  for (const ClockRec &r : recs) {
    if (r.ns1 == 0)
      continue; // not written
    if (r.sm >= sms.size())
      sms.resize(r.sm + 1);
    Sm &s = sms[r.sm];
    s.first = s.n ? std::min(s.first, r.clk0) : r.clk0;
    s.last = s.n ? std::max(s.last, r.clk1) : r.clk1;
    s.n++;
  }
  std::vector<double> rates;
  for (const Sm &s : sms)
    if (s.n > 0 && s.last > s.first)
      rates.push_back(s.n * work_per_rec / double(s.last - s.first));
  return median(rates);
}

// Device memory for n clock records, cleared (a record never written reads
// ns1 == 0 and is skipped).
struct Recs {
  ClockRec *dev = nullptr;
  size_t n = 0;
  explicit Recs(size_t count) : n(count) {
    HWKIT_CHECK(cudaMalloc(&dev, n * sizeof(ClockRec)));
    HWKIT_CHECK(cudaMemset(dev, 0, n * sizeof(ClockRec)));
  }
  ~Recs() { cudaFree(dev); }
  Recs(const Recs &) = delete;
  Recs &operator=(const Recs &) = delete;
  std::vector<ClockRec> fetch() const {
    std::vector<ClockRec> v(n);
    HWKIT_CHECK(cudaDeviceSynchronize());
    HWKIT_CHECK(cudaMemcpy(v.data(), dev, n * sizeof(ClockRec), cudaMemcpyDeviceToHost));
    return v;
  }
};

// One raw record: key=value fields in the order they are set.
class Row {
  std::vector<std::pair<std::string, std::string>> fields_;

public:
  Row &set(const char *key, const std::string &value) {
    std::string v = value;
    for (char &ch : v)
      if (ch == '\t' || ch == '\n' || ch == '\r')
        ch = ' ';
    for (auto &f : fields_)
      if (f.first == key) {
        f.second = v;
        return *this;
      }
    fields_.emplace_back(key, v);
    return *this;
  }
  Row &set(const char *key, const char *value) { return set(key, std::string(value)); }
  Row &set(const char *key, long long value) { return set(key, std::to_string(value)); }
  Row &set(const char *key, int value) { return set(key, (long long)value); }
  Row &set(const char *key, unsigned value) { return set(key, (long long)value); }
  Row &set(const char *key, size_t value) { return set(key, (long long)value); }
  // Doubles with 6 significant digits; NaN leaves the field out.
  Row &set(const char *key, double value) {
    if (std::isnan(value))
      return *this;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return set(key, std::string(buf));
  }
  void print() const {
    std::string line = "row";
    for (const auto &f : fields_)
      line += "\t" + f.first + "=" + f.second;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
};

// The kernel's registers and static shared memory, and how many blocks of
// `block` threads with `dyn_shmem` dynamic shared bytes fit one SM.
template <class Kernel>
void describe_kernel(Row &row, Kernel kernel, int block, size_t dyn_shmem) {
  cudaFuncAttributes a;
  HWKIT_CHECK(cudaFuncGetAttributes(&a, kernel));
  int fit = 0;
  HWKIT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, block, dyn_shmem));
  row.set("regs", a.numRegs);
  row.set("shmem", (long long)(a.sharedSizeBytes + dyn_shmem));
  row.set("local_bytes", (long long)a.localSizeBytes);
  row.set("blocks_per_sm", fit);
}

// A case's common fields: what the CSV writer needs (kernel or desc, grid,
// block, event_us, core_mhz) and the timing and clock details.
//   what: "kernel=NAME" for a kernel gpush ships (empty, ffma_chain, a
//         suite kernel), or "desc=NAME" for tools/hwkit/kernels/NAME.lua
inline Row base_row(const Kit &k, const char *what, long long grid, int block, const Timing &t,
                    double probe_before, double probe_after, const ClockStats *cs) {
  Row row;
  const char *eq = std::strchr(what, '=');
  if (!eq)
    fail("internal: case '%s' names no kernel= or desc=", what);
  std::string key(what, eq - what);
  row.set("bench", bench_name());
  row.set(key.c_str(), eq + 1);
  row.set("grid", grid);
  row.set("block", block);
  row.set("event_us", t.median_us);
  row.set("event_min_us", t.min_us);
  row.set("batch_us", t.batch_us);
  row.set("event_null_us", k.null_us);
  row.set("reps", t.reps);
  double probe = 0.5 * (probe_before + probe_after);
  bool from_kernel = cs && !std::isnan(cs->kernel_mhz) && cs->timed_ns >= 1e6;
  row.set("core_mhz", from_kernel ? cs->kernel_mhz : probe);
  row.set("mhz_source", from_kernel ? "kernel" : "probe");
  row.set("probe_mhz", probe);
  row.set("probe_drift", std::fabs(probe_after - probe_before) / probe);
  if (cs) {
    row.set("kernel_mhz", cs->kernel_mhz);
    row.set("clk_cycles", cs->clk_median);
    row.set("clk_max", cs->clk_max);
    row.set("span_us", cs->span_us);
  }
  return row;
}

// Cycles of the whole kernel at the row's clock (for derived figures; the
// CSV writer computes the `cycles` column the same way).
inline double kernel_cycles(const Timing &t, double mhz) { return t.median_us * mhz; }

inline void progress(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "hwkit %s: ", bench_name());
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
}

// Deterministic pseudo-random numbers (splitmix64) for chains and data.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

} // namespace hwkit
