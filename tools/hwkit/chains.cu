// chains.cu -- dependent chains: the latency of FFMA, DFMA, MUFU, integer ALU
// and IMAD (the presets' ops.<class>.latency).
//
// Each warp runs `iters` trips of 128 dependent instructions (a chain: each
// reads the previous one's result), unrolled, so a trip is 128 instructions
// plus the loop's own few.  The plain kernel is what gpush models: `ffma_chain`
// is the kernel of gpush correlate's microbenchmark `ffma_chain` (an `iters`
// column; the shape of ../shared/traces/ffma-chain-h100-*), the others are
// tools/hwkit/kernels/{dfma,mufu,int,imad}_chain.lua.  The clocked variant
// reads clock64() before and after the loop: clk_cycles / (iters x 128) is
// the dependent latency in cycles (the loop's overhead shares it; docs/hwkit.md).
#include "hwkit.h"
#include "ops.h"

template <class Op, bool CLOCKED>
__global__ void chain(int iters, typename Op::T x0, typename Op::T a, typename Op::T b, typename Op::T *out,
                      hwkit::ClockRec *rec) {
  typename Op::T x = x0;
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int j = 0; j < 128 / Op::per_step; j++)
      x = Op::step(x, a, b);
  }
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if ((threadIdx.x & 31) == 0)
      hwkit::store_rec(&rec[(blockIdx.x * blockDim.x + threadIdx.x) / 32], m0, m1);
  }
  if (Op::sentinel(x))
    out[0] = x;
}

struct Case {
  const char *what; // kernel=NAME or desc=NAME
  const char *label;
  long long grid;
  int block, iters;
};

template <class Op>
void run_case(hwkit::Kit &k, const Case &c, const char *op_name, typename Op::T x0, typename Op::T a,
              typename Op::T b) {
  using T = typename Op::T;
  T *out;
  HWKIT_CHECK(cudaMalloc(&out, sizeof(T)));
  double p0 = hwkit::probe_mhz(k);
  hwkit::Timing t = hwkit::time_launches(
      k, [&] { chain<Op, false><<<unsigned(c.grid), c.block>>>(c.iters, x0, a, b, out, nullptr); });
  size_t warps = size_t(c.grid) * ((c.block + 31) / 32);
  hwkit::Recs recs(warps);
  chain<Op, true><<<unsigned(c.grid), c.block>>>(c.iters, x0, a, b, out, recs.dev);
  HWKIT_LAUNCHED();
  hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
  double p1 = hwkit::probe_mhz(k);
  hwkit::Row row = hwkit::base_row(k, c.what, c.grid, c.block, t, p0, p1, &cs);
  if (!std::strcmp(c.what, "kernel=ffma_chain"))
    row.set("iters", c.iters);
  hwkit::describe_kernel(row, chain<Op, false>, c.block, 0);
  row.set("label", c.label);
  row.set("metric", std::string(op_name) + " dependent latency");
  row.set("value", cs.clk_median / (double(c.iters) * 128.0));
  row.set("unit", "cycles");
  row.set("chain_insts", (long long)c.iters * 128);
  row.print();
  hwkit::progress("%s grid %lld x %d, %d x 128: %.2f us, %.2f cycles per instruction", op_name, c.grid, c.block,
                  c.iters, t.median_us, cs.clk_median / (double(c.iters) * 128.0));
  HWKIT_CHECK(cudaFree(out));
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("chains", argc, argv);
  const long long S = k.sms;
  std::vector<Case> ffma = {
      {"kernel=ffma_chain", "ffma chain, 1 warp", 1, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp", 1, 32, 20},
      {"kernel=ffma_chain", "ffma chain, 1 warp", 1, 32, 40},
      {"kernel=ffma_chain", "ffma chain, 1 warp", 1, 32, 80},
      {"kernel=ffma_chain", "ffma chain, 1 warp", 1, 32, 160},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block", 16, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block, a block per SM", S, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block", 4 * S, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block", 16 * S, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block", 6000, 32, 10},
      {"kernel=ffma_chain", "ffma chain, 1 warp a block", 6000, 32, 40},
      {"kernel=ffma_chain", "ffma chain, 4 warps a block", S, 128, 10},
      {"kernel=ffma_chain", "ffma chain, 32 warps a block", S, 1024, 10},
  };
  if (k.opt.quick)
    ffma = {ffma[0], ffma[2], ffma[6]};
  for (const Case &c : ffma)
    run_case<FfmaOp>(k, c, "ffma", 1.0f, 0.999f, 0.001f);
  // the other classes: one warp, and four warps on every SM
  const char *names[] = {"dfma", "mufu", "int", "imad"};
  for (int n = 0; n < 4; n++) {
    std::string what = std::string("desc=") + names[n] + "_chain";
    std::string label1 = std::string(names[n]) + " chain, 1 warp";
    std::string label2 = std::string(names[n]) + " chain, 4 warps a block, a block per SM";
    Case cases[] = {{what.c_str(), label1.c_str(), 1, 32, 40}, {what.c_str(), label2.c_str(), S, 128, 40}};
    for (const Case &c : cases) {
      if (n == 0)
        run_case<DfmaOp>(k, c, "dfma", 1.0, 0.999, 0.001);
      else if (n == 1)
        run_case<MufuOp>(k, c, "mufu", 2.0f, 0.0f, 0.0f);
      else if (n == 2)
        run_case<IntOp>(k, c, "int", 12345u, 0x61c88647u, 0x5bd1e995u);
      else
        run_case<ImadOp>(k, c, "imad", 12345u, 0x61c88647u, 0x5bd1e995u);
      if (k.opt.quick)
        break;
    }
  }
  return 0;
}
