// ops.h -- the arithmetic steps of the chain and throughput benchmarks.
//
// Each Op has a value type T, `step(x, a, b)` (one or two dependent SASS
// instructions, `per_step` of them) and a sentinel test the compiler cannot
// decide, so the result stays live without being stored.  The PTX each step
// becomes (checked by spec/hwkit_spec.lua on the PTX, and on the SASS by
// tools/hwkit/sass_check.lua on a run's sass.txt):
//   FfmaOp  fma.rn.f32                    -> FFMA
//   DfmaOp  fma.rn.f64                    -> DFMA
//   MufuOp  rsqrt.approx.ftz.f32          -> MUFU.RSQ (converges to 1: never inf)
//   IntOp   add.s32 then xor.b32          -> IMAD.IADD, LOP3 on sm_90 (no algebra folds an
//                                            alternating chain; a pure add
//                                            chain would fold into one IMAD)
//   ImadOp  mad.lo.s32                    -> IMAD
#pragma once

struct FfmaOp {
  using T = float;
  static constexpr int per_step = 1;
  static __device__ __forceinline__ T step(T x, T a, T b) { return fmaf(x, a, b); }
  static __device__ __forceinline__ bool sentinel(T x) { return x == -1234.5f; }
};

struct DfmaOp {
  using T = double;
  static constexpr int per_step = 1;
  static __device__ __forceinline__ T step(T x, T a, T b) { return fma(x, a, b); }
  static __device__ __forceinline__ bool sentinel(T x) { return x == -1234.5; }
};

struct MufuOp {
  using T = float;
  static constexpr int per_step = 1;
  static __device__ __forceinline__ T step(T x, T, T) {
    T y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
  static __device__ __forceinline__ bool sentinel(T x) { return x == -1234.5f; }
};

struct IntOp {
  using T = unsigned;
  static constexpr int per_step = 2;
  static __device__ __forceinline__ T step(T x, T a, T b) { return (x + a) ^ b; }
  static __device__ __forceinline__ bool sentinel(T x) { return x == 0x9e3779b9u; }
};

struct ImadOp {
  using T = unsigned;
  static constexpr int per_step = 1;
  static __device__ __forceinline__ T step(T x, T a, T b) { return x * a + b; }
  static __device__ __forceinline__ bool sentinel(T x) { return x == 0x9e3779b9u; }
};
