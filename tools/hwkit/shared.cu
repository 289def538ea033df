// shared.cu -- shared memory: bandwidth, bank conflicts and load-to-use
// latency (the presets' shared.banks, shared.bank_bytes, shared.latency).
//
// lds_bw: every SM full (8 blocks of 256 threads), an 8 KB tile.  Each trip a
// thread reads four words with volatile loads (four LDS) at word
// lane x stride (+ 32, 64, 96) and folds them into an accumulator with two
// FFMAs.  Lanes `stride` words apart put `stride` lanes in one of the 32
// banks (stride 1: none share; 2: 2-way; 8: 8-way; 32: all 32 lanes in one
// bank), so each LDS takes that many passes.  value = LDS warp instructions
// per SM per cycle (the median block's clock64 cycles around the loop).
// lds_chain: one warp; each lane follows a chain of byte offsets through the
// 1 KB tile (word w holds the offset of word w + 32: conflict-free), one LDS
// a trip: value = LDS load-to-use latency.
// Paired with tools/hwkit/kernels/lds_stride{1,2,8,32}.lua and lds_chain.lua.
#include "hwkit.h"

constexpr int BLOCK = 256, TILE = 2048; // words (8 KB)
constexpr int CHAIN_TILE = 256;          // words (1 KB): eight per lane, launched with 32 threads

template <bool CLOCKED>
__global__ void lds_bw(int trips, int stride, float *out, hwkit::ClockRec *rec) {
  __shared__ float tile[TILE];
#pragma unroll
  for (int j = 0; j < TILE / BLOCK; j++)
    tile[threadIdx.x + j * BLOCK] = float(j);
  __syncthreads();
  const volatile float *p = tile + (threadIdx.x & 31) * stride;
  float acc = 0.0f;
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
#pragma unroll 1
  for (int t = 0; t < trips; t++) {
    float a0 = p[0], a1 = p[32], a2 = p[64], a3 = p[96];
    acc = fmaf(a0, a1, acc);
    acc = fmaf(a2, a3, acc);
  }
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
  if (acc == -1234.5f)
    out[0] = acc;
}

template <bool CLOCKED>
__global__ void lds_chain(int trips, float *out, hwkit::ClockRec *rec) {
  __shared__ int tile[CHAIN_TILE];
#pragma unroll
  for (int j = 0; j < CHAIN_TILE / 32; j++)
    tile[threadIdx.x + 32 * j] = ((threadIdx.x + 32 * (j + 1)) % CHAIN_TILE) * 4;
  __syncthreads();
  int off = (threadIdx.x & 31) * 4;
  const volatile char *base = reinterpret_cast<const volatile char *>(tile);
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
#pragma unroll 1
  for (int t = 0; t < trips; t++)
    off = *reinterpret_cast<const volatile int *>(base + off);
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(rec, m0, m1);
  }
  if (off == 1)
    out[0] = float(off);
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("shared", argc, argv);
  float *out;
  HWKIT_CHECK(cudaMalloc(&out, sizeof(float)));
  const int trips = 64;
  struct Stride {
    int words;
    const char *desc, *label;
  } strides[] = {{1, "desc=lds_stride1", "LDS, lanes 4 B apart (no conflict)"},
                 {2, "desc=lds_stride2", "LDS, lanes 8 B apart (2-way conflict)"},
                 {8, "desc=lds_stride8", "LDS, lanes 32 B apart (8-way conflict)"},
                 {32, "desc=lds_stride32", "LDS, lanes 128 B apart (32-way conflict)"}};
  int fit = 0;
  HWKIT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, lds_bw<false>, BLOCK, 0));
  int per_sm = std::min(fit, 2048 / BLOCK);
  long long grid = (long long)k.sms * per_sm;
  for (const Stride &s : strides) {
    double p0 = hwkit::probe_mhz(k);
    hwkit::Timing t =
        hwkit::time_launches(k, [&] { lds_bw<false><<<unsigned(grid), BLOCK>>>(trips, s.words, out, nullptr); });
    hwkit::Recs recs{size_t(grid)};
    lds_bw<true><<<unsigned(grid), BLOCK>>>(trips, s.words, out, recs.dev);
    HWKIT_LAUNCHED();
    std::vector<hwkit::ClockRec> got = recs.fetch();
    hwkit::ClockStats cs = hwkit::clock_stats(got);
    double p1 = hwkit::probe_mhz(k);
    hwkit::Row row = hwkit::base_row(k, s.desc, grid, BLOCK, t, p0, p1, &cs);
    hwkit::describe_kernel(row, lds_bw<false>, BLOCK, 0);
    // an SM's LDS over the SM's cycles (hwkit::per_sm_rate), 4 a trip
    double lds_per_sm = hwkit::per_sm_rate(got, (BLOCK / 32) * double(trips) * 4);
    row.set("label", s.label);
    row.set("metric", "LDS warp instructions per SM per cycle");
    row.set("value", lds_per_sm);
    row.set("unit", "warp insts/SM/cycle");
    row.set("stride_bytes", 4 * s.words);
    row.set("iters", trips);
    row.print();
    hwkit::progress("%s: %.2f us, %.3f LDS per SM cycle", s.label, t.median_us, lds_per_sm);
  }
  const int chain_trips = 2048;
  double p0 = hwkit::probe_mhz(k);
  hwkit::Timing t = hwkit::time_launches(k, [&] { lds_chain<false><<<1, 32>>>(chain_trips, out, nullptr); });
  hwkit::Recs recs{1};
  lds_chain<true><<<1, 32>>>(chain_trips, out, recs.dev);
  HWKIT_LAUNCHED();
  hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
  double p1 = hwkit::probe_mhz(k);
  hwkit::Row row = hwkit::base_row(k, "desc=lds_chain", 1, 32, t, p0, p1, &cs);
  hwkit::describe_kernel(row, lds_chain<false>, 32, 0);
  row.set("label", "LDS chain, 1 warp");
  row.set("metric", "LDS load-to-use latency");
  row.set("value", cs.clk_median / chain_trips);
  row.set("unit", "cycles");
  row.set("iters", chain_trips);
  row.print();
  hwkit::progress("LDS chain: %.2f us, %.1f cycles a load", t.median_us, cs.clk_median / chain_trips);
  HWKIT_CHECK(cudaFree(out));
  return 0;
}
