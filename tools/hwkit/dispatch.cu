// dispatch.cu -- block dispatch: many short blocks whose register or
// shared-memory footprint limits how many fit an SM (the presets'
// launch.block_cycles and the front-end parameters around it).
//
// Blocks of 256 threads; each thread loads 16-byte words of a 64 KB array
// that every block reads (L2- and L1-resident), adds them up and stores only
// if the sum is a sentinel (never), so a block lives a few hundred cycles:
//   dispatch_lean  one LDG.128 and three FADDs a thread (few registers),
//                  launched with 0, 32, 64 and 200 KB of dynamic shared
//                  memory a block: 8, 7, 3 and 1 blocks an SM
//   dispatch_fat   sixteen volatile LDG.128 issued in order, then 63 FADDs
//                  that start from the last load (about 70 registers a
//                  thread: 3 blocks an SM)
// value = cycles per block, GPU-wide (kernel cycles / grid).  The clocked
// variant records each block's lifetime (clk_cycles: the median block).
// Paired with tools/hwkit/kernels/dispatch_lean.lua (the CSV's `shmem` column
// is the dynamic shared memory: the description files dispatch_lean_*.lua
// give it) and dispatch_fat.lua.
#include "hwkit.h"

constexpr int BLOCK = 256;

template <bool CLOCKED>
__global__ void dispatch_lean(const float4 *in, float *out, hwkit::ClockRec *rec) {
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
  float4 v = in[threadIdx.x];
  float s = v.x + v.y + v.z + v.w;
  if (s == -1234.5f)
    out[0] = s;
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
}

// A 16-byte volatile load: volatile loads keep their order, so the fat
// kernel's sixteen loads are all in flight before the first add.
__device__ __forceinline__ float4 load_ordered(const float4 *p) {
  float4 v;
  asm volatile("ld.volatile.global.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}

template <bool CLOCKED>
__global__ void dispatch_fat(const float4 *in, float *out, hwkit::ClockRec *rec) {
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
  float4 v[16];
#pragma unroll
  for (int j = 0; j < 16; j++)
    v[j] = load_ordered(in + threadIdx.x + j * BLOCK);
  // the sum starts from the last load, so every loaded value stays in a
  // register until it arrives: 64 live values
  float s = v[15].w;
#pragma unroll
  for (int j = 0; j < 16; j++) {
    s = s + v[j].x;
    s = s + v[j].y;
    s = s + v[j].z;
    if (j < 15)
      s = s + v[j].w;
  }
  if (s == -1234.5f)
    out[0] = s;
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("dispatch", argc, argv);
  float4 *in;
  float *out;
  HWKIT_CHECK(cudaMalloc(&in, 16 * BLOCK * sizeof(float4)));
  HWKIT_CHECK(cudaMemset(in, 0, 16 * BLOCK * sizeof(float4)));
  HWKIT_CHECK(cudaMalloc(&out, sizeof(float)));
  struct Case {
    const char *desc, *label;
    bool fat;
    size_t shmem;
    long long grid;
  };
  const size_t KB = 1024;
  std::vector<Case> cases;
  const char *lean_desc[] = {"desc=dispatch_lean", "desc=dispatch_lean_32k", "desc=dispatch_lean_64k",
                             "desc=dispatch_lean_200k"};
  const char *lean_label[] = {"short blocks, no shared memory", "short blocks, 32 KB shared memory",
                              "short blocks, 64 KB shared memory", "short blocks, 200 KB shared memory"};
  const size_t lean_shmem[] = {0, 32 * KB, 64 * KB, 200 * KB};
  for (long long grid : {16384LL, 65536LL})
    for (int i = 0; i < 4; i++)
      cases.push_back({lean_desc[i], lean_label[i], false, lean_shmem[i], grid});
  cases.push_back({"desc=dispatch_fat", "short blocks, about 70 registers a thread", true, 0, 16384});
  size_t max_shmem = size_t(k.prop.sharedMemPerBlockOptin);
  HWKIT_CHECK(cudaFuncSetAttribute(dispatch_lean<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(std::min<size_t>(max_shmem, 200 * KB))));
  HWKIT_CHECK(cudaFuncSetAttribute(dispatch_lean<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   int(std::min<size_t>(max_shmem, 200 * KB))));
  for (const Case &c : cases) {
    if (c.shmem > max_shmem) {
      hwkit::progress("%s: skipped (a block may have at most %zu bytes of shared memory here)", c.label, max_shmem);
      continue;
    }
    auto go = [&](bool clocked, hwkit::ClockRec *rec) {
      unsigned g = unsigned(c.grid);
      if (c.fat) {
        if (clocked)
          dispatch_fat<true><<<g, BLOCK>>>(in, out, rec);
        else
          dispatch_fat<false><<<g, BLOCK>>>(in, out, rec);
      } else if (clocked) {
        dispatch_lean<true><<<g, BLOCK, c.shmem>>>(in, out, rec);
      } else {
        dispatch_lean<false><<<g, BLOCK, c.shmem>>>(in, out, rec);
      }
    };
    double p0 = hwkit::probe_mhz(k);
    hwkit::Timing t = hwkit::time_launches(k, [&] { go(false, nullptr); });
    hwkit::Recs recs{size_t(c.grid)};
    go(true, recs.dev);
    HWKIT_LAUNCHED();
    hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
    double p1 = hwkit::probe_mhz(k);
    hwkit::Row row = hwkit::base_row(k, c.desc, c.grid, BLOCK, t, p0, p1, &cs);
    if (c.fat)
      hwkit::describe_kernel(row, dispatch_fat<false>, BLOCK, 0);
    else
      hwkit::describe_kernel(row, dispatch_lean<false>, BLOCK, c.shmem);
    double mhz = 0.5 * (p0 + p1);
    row.set("label", c.label);
    row.set("metric", "cycles per block, GPU-wide");
    row.set("value", hwkit::kernel_cycles(t, mhz) / double(c.grid));
    row.set("unit", "cycles");
    row.set("dyn_shmem", (long long)c.shmem);
    row.print();
    hwkit::progress("%s, grid %lld: %.2f us, %.3f cycles a block, a block lives %.0f cycles", c.label, c.grid,
                    t.median_us, hwkit::kernel_cycles(t, mhz) / double(c.grid), cs.clk_median);
  }
  HWKIT_CHECK(cudaFree(in));
  HWKIT_CHECK(cudaFree(out));
  return 0;
}
