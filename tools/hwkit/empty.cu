// empty.cu -- the GPU front end: an empty kernel over grids and block sizes.
//
// `empty` compiles to one instruction a warp (EXIT), so its time is kernel
// launch, block dispatch, warp launch and retirement alone: what the presets'
// launch.* parameters model.  The grid and block points include the eight of
// ../shared/calibration/h100-pcie/empty-kernels.csv (1,024 to 65,536 blocks
// of 256 and 1,024 threads), so a run on another H100 lines up with them.
// Paired with gpush correlate's microbenchmark kernel `empty`.
#include "hwkit.h"

__global__ void empty() {}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("empty", argc, argv);
  std::vector<long long> grids = {1, k.sms, 2LL * k.sms, 1024, 4096, 16384, 65536, 262144};
  std::vector<int> blocks = {32, 64, 128, 256, 512, 1024};
  if (k.opt.quick) {
    grids = {1, 1024, 65536};
    blocks = {32, 256, 1024};
  }
  for (long long grid : grids)
    for (int block : blocks) {
      double p0 = hwkit::probe_mhz(k);
      hwkit::Timing t = hwkit::time_launches(k, [&] { empty<<<unsigned(grid), block>>>(); });
      double p1 = hwkit::probe_mhz(k);
      hwkit::Row row = hwkit::base_row(k, "kernel=empty", grid, block, t, p0, p1, nullptr);
      hwkit::describe_kernel(row, empty, block, 0);
      double mhz = 0.5 * (p0 + p1);
      row.set("label", "empty kernel");
      row.set("metric", "cycles per block, GPU-wide");
      row.set("value", hwkit::kernel_cycles(t, mhz) / double(grid));
      row.set("unit", "cycles");
      row.print();
      hwkit::progress("grid %lld x %d: %.2f us", grid, block, t.median_us);
    }
  return 0;
}
