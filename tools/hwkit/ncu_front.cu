// ncu_front.cu -- the front-end cases launched once each, for Nsight Compute.
//
// The event timing of empty.cu and chains.cu includes the host's launch path;
// ../shared/calibration/h100-pcie/ was measured with Nsight Compute instead
// (sm__cycles_elapsed: the kernel's duration in SM cycles on the GPU).  This
// program launches the same two kernels (`empty`, and `ffma_chain`: `iters`
// trips of 128 dependent FFMAs a thread, the plain kernel of chains.cu) once
// per case, in the order it prints, so tools/hwkit/ncu.sh can profile each
// launch with `ncu --clock-control none` (the GPU's clocks are left as they
// are) and pair ncu's records with the cases by launch order.
//
//   hwkit-ncu_front [--list] [--quick]
//
// stdout: one line per case, `case<TAB>index<TAB>kernel<TAB>grid<TAB>block<TAB>iters`,
// printed before the case is launched.  --list prints the cases and launches
// nothing.  The warm-up kernel (`warm`) is named apart so a kernel-name
// filter leaves it out.
#include "hwkit.h"
#include "ops.h"

__global__ void empty() {}

__global__ void warm(float *sink) {
  if (threadIdx.x == 1024)
    *sink = 1.0f;
}

__global__ void ffma_chain(int iters, float x0, float a, float b, float *out) {
  float x = x0;
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 128; j++)
      x = FfmaOp::step(x, a, b);
  }
  if (FfmaOp::sentinel(x))
    out[0] = x;
}

struct FrontCase {
  const char *kernel;
  long long grid;
  int block, iters;
};

// The cases: every grid x block of the shared calibration rows and more
// (sizes between and beyond them), then dependent-FFMA chains from one warp
// to many blocks.  `sms` is the GPU's SM count.
static std::vector<FrontCase> front_cases(long long sms, bool quick) {
  std::vector<FrontCase> cs;
  std::vector<long long> grids = {1, sms, 2 * sms, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};
  std::vector<int> blocks = {32, 128, 256, 512, 1024};
  if (quick) {
    grids = {1, 1024, 65536};
    blocks = {256, 1024};
  }
  for (long long g : grids)
    for (int b : blocks)
      cs.push_back({"empty", g, b, 0});
  std::vector<FrontCase> chains = {
      {"ffma_chain", 1, 32, 10},       {"ffma_chain", 1, 32, 20},       {"ffma_chain", 1, 32, 30},
      {"ffma_chain", 1, 32, 40},       {"ffma_chain", 1, 32, 160},      {"ffma_chain", sms, 32, 10},
      {"ffma_chain", 4 * sms, 32, 10}, {"ffma_chain", 1000, 32, 10},    {"ffma_chain", 6000, 32, 10},
      {"ffma_chain", 6000, 32, 40},    {"ffma_chain", sms, 128, 10},    {"ffma_chain", sms, 1024, 10},
      {"ffma_chain", 6000, 256, 10},
  };
  if (quick)
    chains.resize(2);
  cs.insert(cs.end(), chains.begin(), chains.end());
  return cs;
}

int main(int argc, char **argv) {
  bool list = false, quick = false;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--list"))
      list = true;
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else {
      std::fprintf(stderr, "hwkit ncu_front: unknown option '%s' (expected --list, --quick)\n", argv[i]);
      return 2;
    }
  }
  hwkit::bench_name() = "ncu_front";
  int count = 0;
  HWKIT_CHECK(cudaGetDeviceCount(&count));
  if (count == 0) {
    std::fprintf(stderr, "hwkit ncu_front: no CUDA device\n");
    return 1;
  }
  HWKIT_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  HWKIT_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::vector<FrontCase> cs = front_cases(prop.multiProcessorCount, quick);
  float *out = nullptr;
  HWKIT_CHECK(cudaMalloc(&out, sizeof(float)));
  if (!list) {
    warm<<<prop.multiProcessorCount, 256>>>(out);
    HWKIT_LAUNCHED();
    HWKIT_CHECK(cudaDeviceSynchronize());
  }
  for (size_t i = 0; i < cs.size(); i++) {
    const FrontCase &c = cs[i];
    std::printf("case\t%zu\t%s\t%lld\t%d\t%d\n", i + 1, c.kernel, c.grid, c.block, c.iters);
    std::fflush(stdout);
    if (list)
      continue;
    if (!std::strcmp(c.kernel, "empty"))
      empty<<<unsigned(c.grid), c.block>>>();
    else
      ffma_chain<<<unsigned(c.grid), c.block>>>(c.iters, 1.0f, 0.999f, 0.001f, out);
    HWKIT_LAUNCHED();
    HWKIT_CHECK(cudaDeviceSynchronize());
  }
  HWKIT_CHECK(cudaFree(out));
  return 0;
}
