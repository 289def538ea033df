// pchase.cu -- pointer chases: load-to-use latency of L1, L2 and DRAM (the
// presets' l1.latency, l2.latency and dram.latency_ns).
//
// One warp follows a chain of 8-byte pointers, one to a 128-byte line, in a
// random order: each load's address is the previous load's value, so the
// loads run one at a time; all 32 lanes load the same address (one request a
// load, as gpush's `chase` stream does).  Three footprints:
//   chase_l1    16 KB,  ld.global.ca (cached in L1), 4,096 loads: 32 laps of
//               the 128 lines, the first lap cold
//   chase_l2    4 MB,   ld.global.cg (L1 bypassed), 4 laps of 32,768 lines,
//               the first lap cold
//   chase_dram  512 MB, ld.global.cg, 4,096 loads to distinct lines
// Before every launch the L2 is flushed (a store pass over twice its size),
// so each launch starts cold, as gpush's models do.  The plain kernel is one
// loop (load, counter, compare, branch; not unrolled, so a trip is one load);
// the clocked variant reads clock64() around the last `measured` loads
// (warm ones for L1 and L2): value = load-to-use latency in cycles.
// Paired with tools/hwkit/kernels/chase_{l1,l2,dram}.lua.
#include "hwkit.h"

template <bool BYPASS_L1>
__device__ __forceinline__ const unsigned long long *next(const unsigned long long *p) {
  unsigned long long v;
  if (BYPASS_L1)
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  else
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return reinterpret_cast<const unsigned long long *>(v);
}

template <bool BYPASS_L1, bool CLOCKED>
__global__ void chase(const unsigned long long *start, int steps, int measured, unsigned long long *out,
                      hwkit::ClockRec *rec) {
  const unsigned long long *p = start;
  if (CLOCKED) {
#pragma unroll 1
    for (int i = 0; i < steps - measured; i++)
      p = next<BYPASS_L1>(p);
    hwkit::Mark m0 = hwkit::mark();
#pragma unroll 1
    for (int i = 0; i < measured; i++)
      p = next<BYPASS_L1>(p);
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(rec, m0, m1);
  } else {
#pragma unroll 1
    for (int i = 0; i < steps; i++)
      p = next<BYPASS_L1>(p);
  }
  if (p == nullptr)
    out[0] = 1;
}

// Writes the chain: line order[i] points to line order[i + 1] (the last to
// the first), a line being 16 words.
__global__ void link(unsigned long long *base, const unsigned *order, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    base[size_t(order[i]) * 16] = reinterpret_cast<unsigned long long>(base + size_t(order[(i + 1) % n]) * 16);
}

__global__ void flush(unsigned *scratch, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    scratch[i] += 1u;
}

struct Case {
  const char *desc, *label;
  size_t footprint; // bytes
  bool bypass_l1;
  int steps, measured;
  unsigned chain_lines; // lines in the chain: all of the footprint's, or fewer
};

// A chain over `c.chain_lines` distinct lines of the footprint in random order.
static std::vector<unsigned> chain_order(const Case &c, uint64_t seed) {
  unsigned lines = unsigned(c.footprint / 128);
  std::vector<unsigned> all(lines);
  for (unsigned i = 0; i < lines; i++)
    all[i] = i;
  hwkit::Rng rng(seed);
  for (unsigned i = 0; i < c.chain_lines; i++) // partial Fisher-Yates: the first chain_lines
    std::swap(all[i], all[i + rng.below(lines - i)]);
  all.resize(c.chain_lines);
  return all;
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("pchase", argc, argv);
  const size_t MB = 1 << 20;
  std::vector<Case> cases = {
      {"desc=chase_l1", "pointer chase, 16 KB, L1", 16 << 10, false, 4096, 2048, 128},
      {"desc=chase_l2", "pointer chase, 4 MB, L1 bypassed", 4 * MB, true, 4 * 32768, 32768, 32768},
      {"desc=chase_dram", "pointer chase, 512 MB, L1 bypassed", 512 * MB, true, 4096, 2048, 8192},
  };
  size_t scratch_n = std::max<size_t>(2 * size_t(k.prop.l2CacheSize), 64 * MB) / sizeof(unsigned);
  unsigned *scratch;
  HWKIT_CHECK(cudaMalloc(&scratch, scratch_n * sizeof(unsigned)));
  HWKIT_CHECK(cudaMemset(scratch, 0, scratch_n * sizeof(unsigned)));
  unsigned long long *out;
  HWKIT_CHECK(cudaMalloc(&out, sizeof *out));
  uint64_t seed = 7;
  for (const Case &c : cases) {
    unsigned long long *buf;
    unsigned *order_dev;
    HWKIT_CHECK(cudaMalloc(&buf, c.footprint));
    HWKIT_CHECK(cudaMemset(buf, 0, c.footprint));
    std::vector<unsigned> order = chain_order(c, seed++);
    HWKIT_CHECK(cudaMalloc(&order_dev, order.size() * sizeof(unsigned)));
    HWKIT_CHECK(cudaMemcpy(order_dev, order.data(), order.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
    link<<<unsigned((order.size() + 255) / 256), 256>>>(buf, order_dev, unsigned(order.size()));
    HWKIT_LAUNCHED();
    HWKIT_CHECK(cudaDeviceSynchronize());
    const unsigned long long *start = buf + size_t(order[0]) * 16;
    auto cold = [&] {
      flush<<<unsigned(k.sms * 4), 1024>>>(scratch, scratch_n);
      HWKIT_LAUNCHED();
    };
    hwkit::busy(k, 20.0);
    double p0 = hwkit::probe_mhz(k);
    hwkit::Timing t = hwkit::time_launches(
        k,
        [&] {
          if (c.bypass_l1)
            chase<true, false><<<1, 32>>>(start, c.steps, c.measured, out, nullptr);
          else
            chase<false, false><<<1, 32>>>(start, c.steps, c.measured, out, nullptr);
        },
        cold, true);
    hwkit::Recs recs{1};
    cold();
    if (c.bypass_l1)
      chase<true, true><<<1, 32>>>(start, c.steps, c.measured, out, recs.dev);
    else
      chase<false, true><<<1, 32>>>(start, c.steps, c.measured, out, recs.dev);
    HWKIT_LAUNCHED();
    hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
    double p1 = hwkit::probe_mhz(k);
    hwkit::Row row = hwkit::base_row(k, c.desc, 1, 32, t, p0, p1, &cs);
    if (c.bypass_l1)
      hwkit::describe_kernel(row, chase<true, false>, 32, 0);
    else
      hwkit::describe_kernel(row, chase<false, false>, 32, 0);
    double latency = cs.clk_median / c.measured;
    double mhz = 0.5 * (p0 + p1);
    row.set("label", c.label);
    row.set("metric", "load-to-use latency");
    row.set("value", latency);
    row.set("unit", "cycles");
    row.set("value_ns", 1000.0 * latency / mhz);
    row.set("footprint", (long long)c.footprint);
    row.set("loads", c.steps);
    row.set("measured_loads", c.measured);
    row.print();
    hwkit::progress("%s: %.1f us, %.1f cycles (%.1f ns) a load", c.label, t.median_us, latency,
                    1000.0 * latency / mhz);
    HWKIT_CHECK(cudaFree(order_dev));
    HWKIT_CHECK(cudaFree(buf));
  }
  HWKIT_CHECK(cudaFree(scratch));
  HWKIT_CHECK(cudaFree(out));
  return 0;
}
