// atomics.cu -- atomic throughput in L2 and in shared memory.
//
// Every SM full (8 blocks of 256 threads); a grid-stride loop of `trips`: a
// thread loads a random 32-bit word (coalesced) and adds 1 to a bin the word
// picks:
//   atom_hist    global bins, 4,096 of them (16 KB): RED.ADD to random bins,
//                 served by the L2 slices (gpush's suite kernel
//                 atomic_histogram does the same)
//   atom_same    global, one bin for every thread: all atomics on one address
//   atoms_hist   shared-memory bins, 256 a block, lane l using bins l, l + 32,
//                 ... (no two lanes of a warp in one bank): ATOMS.ADD
// value = thread atomics per cycle, GPU-wide, over the time from the first
// block's start to the last block's end (globaltimer, the clocked variant) at
// core_mhz.  Paired with tools/hwkit/kernels/atom_hist.lua, atom_same.lua,
// atoms_hist.lua.
#include "hwkit.h"

constexpr int BLOCK = 256;

template <bool CLOCKED>
__global__ void atom_global(int trips, const unsigned *data, unsigned *bins, unsigned mask, hwkit::ClockRec *rec) {
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
  size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t total = size_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (int t = 0; t < trips; t++)
    atomicAdd(&bins[data[g + t * total] & mask], 1u);
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
}

template <bool CLOCKED>
__global__ void atom_shared(int trips, const unsigned *data, unsigned *out, hwkit::ClockRec *rec) {
  __shared__ unsigned bins[256];
  bins[threadIdx.x] = 0;
  __syncthreads();
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
  size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t total = size_t(gridDim.x) * blockDim.x;
  unsigned lane = threadIdx.x & 31;
#pragma unroll 1
  for (int t = 0; t < trips; t++)
    atomicAdd(&bins[lane + 32 * (data[g + t * total] & 7)], 1u);
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
  __syncthreads();
  if (bins[threadIdx.x] == 0x9e3779b9u)
    out[0] = bins[threadIdx.x];
}

__global__ void fill(unsigned *data, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    data[i] = unsigned(z ^ (z >> 31));
  }
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("atomics", argc, argv);
  const int trips = 8;
  int fit = 0;
  HWKIT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, atom_global<false>, BLOCK, 0));
  long long grid = (long long)k.sms * std::min(fit, 2048 / BLOCK);
  size_t n = size_t(grid) * BLOCK * trips;
  unsigned *data, *bins;
  HWKIT_CHECK(cudaMalloc(&data, n * sizeof(unsigned)));
  HWKIT_CHECK(cudaMalloc(&bins, 4096 * sizeof(unsigned)));
  HWKIT_CHECK(cudaMemset(bins, 0, 4096 * sizeof(unsigned)));
  fill<<<unsigned(k.sms * 4), 256>>>(data, n);
  HWKIT_LAUNCHED();
  struct Case {
    const char *desc, *label;
    int kind; // 0 global bins (mask), 1 shared
    unsigned mask;
  } cases[] = {{"desc=atom_hist", "global atomics to 4096 random bins", 0, 4095u},
               {"desc=atom_same", "global atomics, all to one address", 0, 0u},
               {"desc=atoms_hist", "shared-memory atomics, no bank conflicts", 1, 0u}};
  for (const Case &c : cases) {
    auto go = [&](bool clocked, hwkit::ClockRec *rec) {
      if (c.kind == 1) {
        if (clocked)
          atom_shared<true><<<unsigned(grid), BLOCK>>>(trips, data, bins, rec);
        else
          atom_shared<false><<<unsigned(grid), BLOCK>>>(trips, data, bins, rec);
      } else if (clocked) {
        atom_global<true><<<unsigned(grid), BLOCK>>>(trips, data, bins, c.mask, rec);
      } else {
        atom_global<false><<<unsigned(grid), BLOCK>>>(trips, data, bins, c.mask, rec);
      }
    };
    double p0 = hwkit::probe_mhz(k);
    hwkit::Timing t = hwkit::time_launches(k, [&] { go(false, nullptr); });
    hwkit::Recs recs{size_t(grid)};
    go(true, recs.dev);
    HWKIT_LAUNCHED();
    hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
    double p1 = hwkit::probe_mhz(k);
    hwkit::Row row = hwkit::base_row(k, c.desc, grid, BLOCK, t, p0, p1, &cs);
    if (c.kind == 1)
      hwkit::describe_kernel(row, atom_shared<false>, BLOCK, 0);
    else
      hwkit::describe_kernel(row, atom_global<false>, BLOCK, 0);
    double mhz = 0.5 * (p0 + p1);
    double atomics = double(n);
    row.set("label", c.label);
    row.set("metric", "thread atomics per cycle, GPU-wide");
    row.set("value", atomics / (cs.span_us * mhz));
    row.set("unit", "atomics/cycle");
    row.set("iters", trips);
    row.print();
    hwkit::progress("%s: %.2f us, %.1f atomics per cycle", c.label, t.median_us, atomics / (cs.span_us * mhz));
  }
  HWKIT_CHECK(cudaFree(data));
  HWKIT_CHECK(cudaFree(bins));
  return 0;
}
