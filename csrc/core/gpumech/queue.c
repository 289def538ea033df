/*
 * queue.c -- MSHR queueing (GPUMech Eq. 18-20), DRAM M/D/1 queueing
 * (Eq. 21-23) and textbook single-server waits.
 */
#include "queue.h"

#include <math.h>

double gp_q_core_reqs(double warp_l1_miss_reqs, double warps_per_sm) {
  return warp_l1_miss_reqs * warps_per_sm; /* Eq. 18 */
}

/* Sum over j = 1..n of ceil(j / m) for integers n >= 0, m >= 1: whole
 * rounds r = floor(n / m) contribute m (1 + ... + r), the partial round
 * (n - r m requests) r + 1 each. */
static double ceil_sum(double n, double m) {
  double r = floor(n / m);
  return m * r * (r + 1) / 2 + (n - r * m) * (r + 1);
}

/* Eq. 19 at an integer number of requests. */
static double exp_delay_int(double n, double m, double lat) {
  if (n <= m)
    return 0;
  return lat * ceil_sum(n, m) / n - lat;
}

double gp_q_mshr_exp_delay_cycles(double core_reqs, double mshrs, double avg_miss_latency_cycles) {
  double m = floor(mshrs), lo, hi, f;
  if (!(core_reqs > 0) || !(avg_miss_latency_cycles > 0))
    return 0;
  if (m < 1)
    m = 1;
  if (core_reqs <= m)
    return 0;
  lo = floor(core_reqs);
  hi = ceil(core_reqs);
  f = core_reqs - lo;
  if (f == 0)
    return exp_delay_int(lo, m, avg_miss_latency_cycles);
  return (1 - f) * exp_delay_int(lo, m, avg_miss_latency_cycles) +
         f * exp_delay_int(hi, m, avg_miss_latency_cycles);
}

double gp_q_mshr_delay_cycles(double core_reqs, double mshrs, double avg_miss_latency_cycles,
                              double warp_mem_insts) {
  /* Eq. 20 */
  double m = floor(mshrs) < 1 ? 1 : floor(mshrs);
  if (core_reqs <= m || !(warp_mem_insts > 0))
    return 0;
  return gp_q_mshr_exp_delay_cycles(core_reqs, mshrs, avg_miss_latency_cycles) * warp_mem_insts;
}

double gp_q_dram_service_cycles(double access_bytes, double dram_bytes_per_cycle) {
  return dram_bytes_per_cycle > 0 ? access_bytes / dram_bytes_per_cycle : 0; /* Eq. 22's s */
}

double gp_q_bytes_per_cycle(double bytes_per_second, double core_hz) {
  return core_hz > 0 ? bytes_per_second / core_hz : 0;
}

/* Eq. 21-23 with DESIGN.md's caps: rho below 1 before dividing, and the
 * delay no more than waiting behind half of the outstanding requests. */
void gp_q_dram_delay(double core_reqs, double sms_with_blocks, double interval_cycles,
                     double service_cycles, gp_q_dram *out) {
  double rho;
  out->outstanding_reqs = out->lambda_per_cycle = out->rho = 0;
  out->md1_cycles = out->cap_cycles = out->delay_cycles = 0;
  out->rho_capped = out->delay_capped = 0;
  if (!(core_reqs > 0) || !(sms_with_blocks > 0) || !(interval_cycles > 0) ||
      !(service_cycles > 0))
    return;
  out->outstanding_reqs = core_reqs * sms_with_blocks;
  out->lambda_per_cycle = out->outstanding_reqs / interval_cycles;        /* Eq. 23 */
  out->rho = out->lambda_per_cycle * service_cycles;                      /* Eq. 22 */
  rho = out->rho;
  if (rho >= GP_Q_RHO_MAX) {
    rho = GP_Q_RHO_MAX;
    out->rho_capped = 1;
  }
  out->md1_cycles = out->lambda_per_cycle * service_cycles * service_cycles / (2 * (1 - rho));
  out->cap_cycles = service_cycles * out->outstanding_reqs / 2;
  if (out->cap_cycles < out->md1_cycles) {                                /* Eq. 21 */
    out->delay_cycles = out->cap_cycles;
    out->delay_capped = 1;
  } else {
    out->delay_cycles = out->md1_cycles;
  }
}

double gp_q_md1_wait_cycles(double lambda_per_cycle, double service_cycles) {
  double rho = lambda_per_cycle * service_cycles;
  if (!(rho > 0))
    return 0;
  if (rho > GP_Q_RHO_MAX)
    rho = GP_Q_RHO_MAX;
  return rho * service_cycles / (2 * (1 - rho));
}

double gp_q_mm1_wait_cycles(double lambda_per_cycle, double service_cycles) {
  double rho = lambda_per_cycle * service_cycles;
  if (!(rho > 0))
    return 0;
  if (rho > GP_Q_RHO_MAX)
    rho = GP_Q_RHO_MAX;
  return rho * service_cycles / (1 - rho);
}

void gp_q_mdc_init(gp_q_mdc *q, double servers) {
  q->c = floor(servers) < 1 ? 1 : floor(servers);
  q->exponent = sqrt(2 * (q->c + 1)) - 1;
  q->twice_c = 2 * q->c;
}

double gp_q_mdc_wait_cycles(double utilisation, double servers, double service_cycles) {
  gp_q_mdc q;
  gp_q_mdc_init(&q, servers);
  return gp_q_mdc_wait(&q, utilisation, service_cycles);
}
