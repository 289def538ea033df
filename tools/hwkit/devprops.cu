// devprops.cu -- the device's properties as text (the runner's device.txt),
// and the first check that the kit's binaries run here at all: it exits with
// hwkit::EXIT_DRIVER when the driver is older than the CUDA runtime built in
// and hwkit::EXIT_NO_IMAGE when the binaries carry no code for this GPU.
#include "hwkit.h"

__global__ void touch(int *p) { *p = 1; }

static int attr(cudaDeviceAttr a) {
  int v = 0;
  HWKIT_CHECK(cudaDeviceGetAttribute(&v, a, 0));
  return v;
}

int main() {
  hwkit::bench_name() = "devprops";
  int driver = 0, runtime = 0, count = 0;
  HWKIT_CHECK(cudaDriverGetVersion(&driver));
  HWKIT_CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("cuda_driver_version: %s (%d)\n", hwkit::cuda_version_text(driver).c_str(), driver);
  std::printf("cuda_runtime_version: %s (%d, built in)\n", hwkit::cuda_version_text(runtime).c_str(), runtime);
  std::fflush(stdout);
  HWKIT_CHECK(cudaGetDeviceCount(&count));
  std::printf("devices: %d (device 0 measured)\n", count);
  cudaDeviceProp p;
  HWKIT_CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("name: %s\n", p.name);
  std::printf("compute_capability: %d.%d\n", p.major, p.minor);
  std::printf("multiprocessors: %d\n", p.multiProcessorCount);
  std::printf("sm_clock_max_mhz: %.0f\n", attr(cudaDevAttrClockRate) / 1000.0);
  std::printf("memory_clock_max_mhz: %.0f\n", attr(cudaDevAttrMemoryClockRate) / 1000.0);
  std::printf("memory_bus_bits: %d\n", p.memoryBusWidth);
  std::printf("global_memory_bytes: %zu\n", p.totalGlobalMem);
  std::printf("l2_bytes: %d\n", p.l2CacheSize);
  std::printf("persisting_l2_max_bytes: %d\n", p.persistingL2CacheMaxSize);
  std::printf("shared_per_sm_bytes: %zu\n", p.sharedMemPerMultiprocessor);
  std::printf("shared_per_block_optin_bytes: %zu\n", p.sharedMemPerBlockOptin);
  std::printf("shared_reserved_per_block_bytes: %zu\n", p.reservedSharedMemPerBlock);
  std::printf("registers_per_sm: %d\n", p.regsPerMultiprocessor);
  std::printf("registers_per_block: %d\n", p.regsPerBlock);
  std::printf("max_threads_per_sm: %d\n", p.maxThreadsPerMultiProcessor);
  std::printf("max_blocks_per_sm: %d\n", p.maxBlocksPerMultiProcessor);
  std::printf("max_threads_per_block: %d\n", p.maxThreadsPerBlock);
  std::printf("warp_size: %d\n", p.warpSize);
  std::printf("ecc_enabled: %d\n", p.ECCEnabled);
  std::printf("pci_bus: %04x:%02x:%02x\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  std::printf("global_l1_cache_supported: %d\n", p.globalL1CacheSupported);
  std::printf("compute_mode: %d\n", attr(cudaDevAttrComputeMode));
  std::fflush(stdout);
  // a kernel must run: no image for this GPU fails here
  int *d;
  HWKIT_CHECK(cudaMalloc(&d, sizeof(int)));
  touch<<<1, 1>>>(d);
  HWKIT_LAUNCHED();
  HWKIT_CHECK(cudaDeviceSynchronize());
  HWKIT_CHECK(cudaFree(d));
  std::printf("kernel_runs: yes\n");
  return 0;
}
