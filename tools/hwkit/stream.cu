// stream.cu -- achievable DRAM bandwidth, STREAM style (the presets'
// dram.bandwidth_gbs is the peak; this is what a kernel reaches).
//
// Three kernels in the form of gpush's suite kernel stream_triad: thread g of
// the grid handles elements g + t x (grid x block) for t < trips (a
// grid-stride loop), 16 bytes (float4) an access:
//   triad  a[i] = b[i] + s * c[i]   (two loads and a store an element)
//   copy   a[i] = b[i]
//   read   s += b[i]                (loads only; one store a thread at the end)
// Arrays are 64 MB (2,048 blocks of 256 threads, 8 trips) or 256 MB (8,192
// blocks), more than any L2.  value = bytes moved / the time from the first
// block's start to the last block's end (globaltimer, the clocked variant);
// event_gbs uses the event time instead (it includes the launch).  Paired
// with tools/hwkit/kernels/stream_{triad,copy,read}*.lua.
#include "hwkit.h"

enum Kind { TRIAD, COPY, READ };

template <Kind K, bool CLOCKED>
__global__ void stream(int trips, float s, float4 *a, const float4 *b, const float4 *c, hwkit::ClockRec *rec) {
  hwkit::Mark m0;
  if (CLOCKED)
    m0 = hwkit::mark();
  size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  size_t total = size_t(gridDim.x) * blockDim.x;
  float4 acc = make_float4(0, 0, 0, 0);
#pragma unroll 1
  for (int t = 0; t < trips; t++) {
    size_t i = g + t * total;
    float4 x = b[i];
    if (K == TRIAD) {
      float4 y = c[i];
      a[i] = make_float4(fmaf(s, y.x, x.x), fmaf(s, y.y, x.y), fmaf(s, y.z, x.z), fmaf(s, y.w, x.w));
    } else if (K == COPY) {
      a[i] = x;
    } else {
      acc.x += x.x;
      acc.y += x.y;
      acc.z += x.z;
      acc.w += x.w;
    }
  }
  if (K == READ && acc.x + acc.y + acc.z + acc.w == -1234.5f)
    a[g] = acc;
  if (CLOCKED) {
    hwkit::Mark m1 = hwkit::mark();
    if (threadIdx.x == 0)
      hwkit::store_rec(&rec[blockIdx.x], m0, m1);
  }
}

struct Case {
  const char *desc, *label;
  Kind kind;
  long long grid;
};

template <Kind K>
void launch(bool clocked, const Case &c, int trips, float4 *a, const float4 *b, const float4 *cc,
            hwkit::ClockRec *rec) {
  if (clocked)
    stream<K, true><<<unsigned(c.grid), 256>>>(trips, 3.0f, a, b, cc, rec);
  else
    stream<K, false><<<unsigned(c.grid), 256>>>(trips, 3.0f, a, b, cc, rec);
}

int main(int argc, char **argv) {
  hwkit::Kit k = hwkit::init("stream", argc, argv);
  const int block = 256, trips = 8;
  std::vector<Case> cases = {
      {"desc=stream_triad", "triad, 3 x 64 MB", TRIAD, 2048},
      {"desc=stream_triad_256m", "triad, 3 x 256 MB", TRIAD, 8192},
      {"desc=stream_copy", "copy, 2 x 64 MB", COPY, 2048},
      {"desc=stream_read", "read, 64 MB", READ, 2048},
      {"desc=stream_read_256m", "read, 256 MB", READ, 8192},
  };
  size_t max_elems = size_t(8192) * block * trips;
  float4 *a, *b, *c;
  HWKIT_CHECK(cudaMalloc(&a, max_elems * sizeof(float4)));
  HWKIT_CHECK(cudaMalloc(&b, max_elems * sizeof(float4)));
  HWKIT_CHECK(cudaMalloc(&c, max_elems * sizeof(float4)));
  HWKIT_CHECK(cudaMemset(a, 0, max_elems * sizeof(float4)));
  HWKIT_CHECK(cudaMemset(b, 0, max_elems * sizeof(float4)));
  HWKIT_CHECK(cudaMemset(c, 0, max_elems * sizeof(float4)));
  for (const Case &cs_ : cases) {
    auto go = [&](bool clocked, hwkit::ClockRec *rec) {
      if (cs_.kind == TRIAD)
        launch<TRIAD>(clocked, cs_, trips, a, b, c, rec);
      else if (cs_.kind == COPY)
        launch<COPY>(clocked, cs_, trips, a, b, c, rec);
      else
        launch<READ>(clocked, cs_, trips, a, b, c, rec);
    };
    double p0 = hwkit::probe_mhz(k);
    hwkit::Timing t = hwkit::time_launches(k, [&] { go(false, nullptr); });
    hwkit::Recs recs{size_t(cs_.grid)};
    go(true, recs.dev);
    HWKIT_LAUNCHED();
    hwkit::ClockStats cs = hwkit::clock_stats(recs.fetch());
    double p1 = hwkit::probe_mhz(k);
    hwkit::Row row = hwkit::base_row(k, cs_.desc, cs_.grid, block, t, p0, p1, &cs);
    if (cs_.kind == TRIAD)
      hwkit::describe_kernel(row, stream<TRIAD, false>, block, 0);
    else if (cs_.kind == COPY)
      hwkit::describe_kernel(row, stream<COPY, false>, block, 0);
    else
      hwkit::describe_kernel(row, stream<READ, false>, block, 0);
    double arrays = cs_.kind == TRIAD ? 3 : cs_.kind == COPY ? 2 : 1;
    double bytes = arrays * double(cs_.grid) * block * trips * sizeof(float4);
    row.set("label", cs_.label);
    row.set("metric", "achieved DRAM bandwidth");
    row.set("value", bytes / (cs.span_us * 1000.0));
    row.set("unit", "GB/s");
    row.set("event_gbs", bytes / (t.median_us * 1000.0));
    row.set("bytes", bytes);
    row.print();
    hwkit::progress("%s: %.1f us, %.0f GB/s (%.0f GB/s by events)", cs_.label, t.median_us,
                    bytes / (cs.span_us * 1000.0), bytes / (t.median_us * 1000.0));
  }
  HWKIT_CHECK(cudaFree(a));
  HWKIT_CHECK(cudaFree(b));
  HWKIT_CHECK(cudaFree(c));
  return 0;
}
