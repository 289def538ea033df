/*
 * nn.h -- a small fully connected three-layer network (linear inputs, one
 * sigmoid hidden layer, sigmoid outputs) trained by backpropagation: the
 * classifier of Wu et al. (HPCA 2015, Sec. III-D, Fig. 9).
 *
 * Generic numerics: it knows nothing about kernels or GPUs.  Deterministic:
 * the weights start from a seeded splitmix64 stream (never rand()), every
 * sum runs in a fixed order, and training is full-batch, so the same data,
 * options and seed give the same weights bit for bit.
 */
#ifndef GP_NN_H
#define GP_NN_H

#include "gp_common.h"

typedef struct gp_nn {
  size_t in, hidden, out;
  double *w1; /* hidden x in, row-major: w1[h * in + i] */
  double *b1; /* hidden */
  double *w2; /* out x hidden */
  double *b2; /* out */
  gp_alloc alloc;
} gp_nn;

/* Allocates a network with weights drawn uniformly from
 * [-1/sqrt(fan_in), 1/sqrt(fan_in)] (seeded) and zero biases.  Errors: a
 * zero size, out of memory.  Free with gp_nn_free (also after an error). */
int gp_nn_init(gp_nn *nn, const gp_alloc *alloc, size_t in, size_t hidden, size_t out,
               uint64_t seed, gp_error *err);
void gp_nn_free(gp_nn *nn);

/* Allocates a network of the given shape with every weight 0 (to be filled
 * by a reader); the same errors as gp_nn_init. */
int gp_nn_alloc(gp_nn *nn, const gp_alloc *alloc, size_t in, size_t hidden, size_t out,
                gp_error *err);

/* The forward pass: hidden (nn->hidden values) and out (nn->out values in
 * (0, 1)) for one input vector x (nn->in values). */
void gp_nn_forward(const gp_nn *nn, const double *x, double *hidden, double *out);

/* The index of the largest output (ties: the lowest index).  scratch holds
 * nn->hidden + nn->out doubles. */
size_t gp_nn_classify(const gp_nn *nn, const double *x, double *scratch);

typedef struct gp_nn_train_opts {
  unsigned epochs;      /* full-batch passes at most (default 1000) */
  double learning_rate; /* Adam step size (default 0.1) */
  double beta1, beta2;  /* Adam moment decay (0.9, 0.999) */
  double epsilon;       /* Adam denominator guard (1e-8) */
  double weight_decay;  /* L2 penalty on the weights, not the biases (1e-4) */
  int stop_when_separated; /* 1: stop early once every example's largest
                              output is its label (checked every 25 epochs;
                              default 0) */
} gp_nn_train_opts;

void gp_nn_train_opts_default(gp_nn_train_opts *o);

typedef struct gp_nn_train_result {
  double loss;      /* mean cross-entropy per example after the last epoch */
  double accuracy;  /* share of examples whose argmax is their label */
  unsigned epochs;  /* epochs run (fewer than asked when stopped early) */
} gp_nn_train_result;

/* Trains on n examples (x: n x in, row-major) with class labels in
 * [0, nn->out): targets are one-hot, the loss the cross-entropy of each
 * sigmoid output against its target bit (so an output's error term is
 * output - target), minimised by full-batch Adam (Kingma and Ba) with L2
 * weight decay.  Errors: n == 0, a label out of range, out of memory. */
int gp_nn_train(gp_nn *nn, const double *x, size_t n, const uint32_t *labels,
                const gp_nn_train_opts *opts, gp_nn_train_result *result, gp_error *err);

#endif
