/*
 * queue.h -- queueing helpers: GPUMech's MSHR queueing (Huang et al.,
 * MICRO 2014, Eq. 18-20) and DRAM M/D/1 queueing (Eq. 21-23), plus the
 * textbook M/D/1 and M/M/1 waiting times.
 *
 * Pure functions of numbers; units are in the parameter names.  Readings of
 * the paper (DESIGN.md, "Errata and readings"):
 *  - Eq. 18-20 count requests that miss L1 (loads; they take MSHRs), per SM,
 *    from every warp resident on the SM (all its schedulers share the MSHRs).
 *  - Eq. 21-23 count every request that reaches DRAM, stores included; L is
 *    the DRAM access size; #cores is the number of SMs holding blocks.
 *  - Eq. 21: the delay is capped at s x (half the outstanding requests), and
 *    the utilisation is capped below 1 (GP_Q_RHO_MAX) before dividing.
 */
#ifndef GP_QUEUE_H
#define GP_QUEUE_H

#include "gp_common.h"

#include <math.h>

/* Utilisation cap applied before the M/D/1 division. */
#define GP_Q_RHO_MAX 0.999

/* Eq. 18: #core_reqs = #warp_mem_reqs x #warps (warps on the SM). */
double gp_q_core_reqs(double warp_l1_miss_reqs, double warps_per_sm);

/* Eq. 19: expected MSHR queueing delay (cycles) of one request when
 * core_reqs requests arrive together at `mshrs` entries, each served in
 * avg_miss_latency_cycles: request j waits ceil(j / #MSHR) service rounds,
 *   mean_j(avg_miss_latency x ceil(j / #MSHR)) - avg_miss_latency.
 * Computed in closed form (whole rounds).  #MSHR is floored to an integer
 * >= 1.  A fractional core_reqs (an expectation) interpolates linearly
 * between its floor and ceiling.  0 when core_reqs <= mshrs. */
double gp_q_mshr_exp_delay_cycles(double core_reqs, double mshrs, double avg_miss_latency_cycles);

/* Eq. 20: an interval's MSHR delay (cycles): 0 when core_reqs <= #MSHR,
 * else Eq. 19 x #warp_mem_insts (per memory instruction, not per request,
 * since a divergent instruction's requests wait together). */
double gp_q_mshr_delay_cycles(double core_reqs, double mshrs, double avg_miss_latency_cycles,
                              double warp_mem_insts);

/* Eq. 22's service time s = freq_core x L / B in core cycles, written as
 * L / B with B in bytes per core cycle. */
double gp_q_dram_service_cycles(double access_bytes, double dram_bytes_per_cycle);

/* Bytes per second to bytes per core cycle (B / freq_core). */
double gp_q_bytes_per_cycle(double bytes_per_second, double core_hz);

/* Eq. 21-23 for one interval. */
typedef struct gp_q_dram {
  double outstanding_reqs;    /* #core_reqs x #cores */
  double lambda_per_cycle;    /* Eq. 23: arrival rate */
  double rho;                 /* Eq. 22: utilisation as computed (may be >= 1) */
  double md1_cycles;          /* lambda s^2 / (2 (1 - min(rho, GP_Q_RHO_MAX))) */
  double cap_cycles;          /* s x outstanding / 2 */
  double delay_cycles;        /* Eq. 21: min(md1, cap) */
  int rho_capped;             /* rho was >= GP_Q_RHO_MAX */
  int delay_capped;           /* the half-outstanding cap was the smaller */
} gp_q_dram;

/* Eq. 21-23: core_reqs = one SM's DRAM requests in the interval (all its
 * warps), sms_with_blocks = #cores, interval_cycles = #interval_insts /
 * issue rate + stall_cycles, service_cycles = s.  Non-positive inputs give a
 * zero delay. */
void gp_q_dram_delay(double core_reqs, double sms_with_blocks, double interval_cycles,
                     double service_cycles, gp_q_dram *out);

/* Textbook mean waiting times in queue (not counting service), Poisson
 * arrivals at lambda per cycle, service s cycles: M/D/1 rho s / (2 (1 - rho)),
 * M/M/1 rho s / (1 - rho); rho capped at GP_Q_RHO_MAX. */
double gp_q_md1_wait_cycles(double lambda_per_cycle, double service_cycles);
double gp_q_mm1_wait_cycles(double lambda_per_cycle, double service_cycles);

/* Mean wait in queue (not counting service) at `servers` identical servers
 * of deterministic service time `service_cycles` at utilisation
 * `utilisation` = arrival rate x service / servers, Poisson arrivals: the
 * M/D/c wait by Sakasegawa's approximation (1977),
 *   service x u^(sqrt(2 (c + 1)) - 1) / (2 c (1 - u)),
 * which is exact (the M/D/1 wait) at c = 1.  servers is floored to an
 * integer >= 1; 0 for u <= 0; HUGE_VAL for u >= 1 (the queue grows without
 * bound: gpush's equations never evaluate it there). */
double gp_q_mdc_wait_cycles(double utilisation, double servers, double service_cycles);

/* gp_q_mdc_wait_cycles's queue with its servers fixed: the floored server
 * count, Sakasegawa's exponent sqrt(2 (c + 1)) - 1 and 2c, worked out once
 * (gpush's wave solve asks the same queues at some forty utilisations). */
typedef struct gp_q_mdc {
  double c, exponent, twice_c;
} gp_q_mdc;

void gp_q_mdc_init(gp_q_mdc *q, double servers);

/* gp_q_mdc_wait_cycles(utilisation, servers, service_cycles) for the
 * servers q was set up with, the same operations in the same order (the
 * same bits). */
static inline double gp_q_mdc_wait(const gp_q_mdc *q, double utilisation, double service_cycles) {
  double u = utilisation;
  if (!(u > 0) || !(service_cycles > 0))
    return 0;
  if (u >= 1)
    return HUGE_VAL;
  if (q->c == 1) /* M/D/1 (Pollaczek-Khinchine) */
    return service_cycles * u / (2 * (1 - u));
  return service_cycles * pow(u, q->exponent) / (q->twice_c * (1 - u));
}

#endif
