/*
 * nn.c -- the three-layer sigmoid network of Wu et al. (Sec. III-D, Fig.
 * 9): forward pass, argmax, and full-batch backpropagation with Adam.
 */
#include "nn.h"
#include "rng.h"

#include <math.h>
#include <string.h>

static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

/* The cross-entropy of output y against target bit t, with y kept off 0
 * and 1 so a saturated output cannot give log(0). */
static double cross_entropy(double y, int t) {
  double p = y < 1e-15 ? 1e-15 : (y > 1 - 1e-15 ? 1 - 1e-15 : y);
  return t ? -log(p) : -log(1 - p);
}

static size_t weight_count(const gp_nn *nn) {
  return nn->hidden * nn->in + nn->hidden + nn->out * nn->hidden + nn->out;
}

/* Every parameter lives in one block: w1, b1, w2, b2 in that order, so the
 * optimiser walks them as one vector. */
static void point_into(gp_nn *nn, double *block) {
  nn->w1 = block;
  nn->b1 = nn->w1 + nn->hidden * nn->in;
  nn->w2 = nn->b1 + nn->hidden;
  nn->b2 = nn->w2 + nn->out * nn->hidden;
}

int gp_nn_alloc(gp_nn *nn, const gp_alloc *alloc, size_t in, size_t hidden, size_t out,
                gp_error *err) {
  double *block;
  memset(nn, 0, sizeof *nn);
  nn->alloc = *alloc;
  if (in == 0 || hidden == 0 || out == 0)
    return gp_error_set(err, "nn: need in, hidden, out > 0 (got %zu, %zu, %zu)", in, hidden,
                        out);
  if (in > 1u << 20 || hidden > 1u << 20 || out > 1u << 20)
    return gp_error_set(err, "nn: %zu x %zu x %zu is too large", in, hidden, out);
  nn->in = in, nn->hidden = hidden, nn->out = out;
  block = gp_malloc(alloc, weight_count(nn) * sizeof *block);
  if (!block) {
    nn->in = nn->hidden = nn->out = 0;
    return gp_error_set(err, "nn: out of memory (%zu x %zu x %zu)", in, hidden, out);
  }
  memset(block, 0, weight_count(nn) * sizeof *block);
  point_into(nn, block);
  return GP_OK;
}

int gp_nn_init(gp_nn *nn, const gp_alloc *alloc, size_t in, size_t hidden, size_t out,
               uint64_t seed, gp_error *err) {
  uint64_t state = seed;
  size_t i;
  double r1, r2;
  if (gp_nn_alloc(nn, alloc, in, hidden, out, err) != GP_OK)
    return GP_ERR;
  r1 = 1.0 / sqrt((double)in);
  r2 = 1.0 / sqrt((double)hidden);
  for (i = 0; i < hidden * in; i++)
    nn->w1[i] = (2 * gp_rng_uniform(&state) - 1) * r1;
  for (i = 0; i < out * hidden; i++)
    nn->w2[i] = (2 * gp_rng_uniform(&state) - 1) * r2;
  return GP_OK;
}

void gp_nn_free(gp_nn *nn) {
  if (nn->w1)
    gp_free(&nn->alloc, nn->w1, weight_count(nn) * sizeof *nn->w1);
  memset(nn, 0, sizeof *nn);
}

/* Fig. 9: hidden = sigmoid(W1 x + b1), out = sigmoid(W2 hidden + b2). */
void gp_nn_forward(const gp_nn *nn, const double *x, double *hidden, double *out) {
  size_t h, i, o;
  for (h = 0; h < nn->hidden; h++) {
    const double *w = nn->w1 + h * nn->in;
    double z = nn->b1[h];
    for (i = 0; i < nn->in; i++)
      z += w[i] * x[i];
    hidden[h] = sigmoid(z);
  }
  for (o = 0; o < nn->out; o++) {
    const double *w = nn->w2 + o * nn->hidden;
    double z = nn->b2[o];
    for (h = 0; h < nn->hidden; h++)
      z += w[h] * hidden[h];
    out[o] = sigmoid(z);
  }
}

/* Sec. III-D: "the cluster with the highest output value is selected". */
size_t gp_nn_classify(const gp_nn *nn, const double *x, double *scratch) {
  double *out = scratch + nn->hidden;
  size_t o, best = 0;
  gp_nn_forward(nn, x, scratch, out);
  for (o = 1; o < nn->out; o++)
    if (out[o] > out[best])
      best = o;
  return best;
}

void gp_nn_train_opts_default(gp_nn_train_opts *o) {
  o->epochs = 1500;
  o->learning_rate = 0.02;
  o->beta1 = 0.9;
  o->beta2 = 0.999;
  o->epsilon = 1e-8;
  o->weight_decay = 1e-4;
}

/* Adds one example's gradient of the cross-entropy to grad (laid out as the
 * weights); returns its loss.  With sigmoid outputs and one-hot targets the
 * output error term is out - target; the hidden one is backpropagated
 * through the sigmoid's derivative h (1 - h). */
static double accumulate(const gp_nn *nn, const double *x, uint32_t label, double *hidden,
                         double *out, double *delta_h, gp_nn *grad) {
  size_t h, i, o;
  double loss = 0;
  gp_nn_forward(nn, x, hidden, out);
  memset(delta_h, 0, nn->hidden * sizeof *delta_h);
  for (o = 0; o < nn->out; o++) {
    double y = out[o], d = y - (o == label ? 1.0 : 0.0);
    const double *w = nn->w2 + o * nn->hidden;
    double *g = grad->w2 + o * nn->hidden;
    loss += cross_entropy(y, o == label);
    grad->b2[o] += d;
    for (h = 0; h < nn->hidden; h++) {
      g[h] += d * hidden[h];
      delta_h[h] += d * w[h];
    }
  }
  for (h = 0; h < nn->hidden; h++) {
    double d = delta_h[h] * hidden[h] * (1 - hidden[h]);
    double *g = grad->w1 + h * nn->in;
    grad->b1[h] += d;
    for (i = 0; i < nn->in; i++)
      g[i] += d * x[i];
  }
  return loss;
}

int gp_nn_train(gp_nn *nn, const double *x, size_t n, const uint32_t *labels,
                const gp_nn_train_opts *opts, gp_nn_train_result *result, gp_error *err) {
  size_t count = weight_count(nn), i, e;
  size_t b1_from = nn->hidden * nn->in, w2_from = b1_from + nn->hidden;
  size_t b2_from = w2_from + nn->out * nn->hidden;
  size_t scratch_n = 3 * count + 2 * nn->hidden + nn->out;
  double *block, *m, *v, *hidden, *out, *delta_h, loss = 0, b1t = 1, b2t = 1;
  gp_nn grad = *nn;
  if (n == 0)
    return gp_error_set(err, "nn: no training examples");
  for (i = 0; i < n; i++)
    if (labels[i] >= nn->out)
      return gp_error_set(err, "nn: example %zu has label %u, the network has %zu outputs", i,
                          (unsigned)labels[i], nn->out);
  block = gp_malloc(&nn->alloc, scratch_n * sizeof *block);
  if (!block)
    return gp_error_set(err, "nn: out of memory training on %zu examples", n);
  memset(block, 0, scratch_n * sizeof *block);
  point_into(&grad, block);
  m = block + count, v = m + count;
  hidden = v + count, out = hidden + nn->hidden, delta_h = out + nn->out;
  for (e = 0; e < opts->epochs; e++) {
    double *w = nn->w1, *g = grad.w1, lr;
    size_t j;
    memset(grad.w1, 0, count * sizeof *grad.w1);
    loss = 0;
    for (i = 0; i < n; i++)
      loss += accumulate(nn, x + i * nn->in, labels[i], hidden, out, delta_h, &grad);
    /* mean gradient, L2 on the weights (not the biases), one Adam step */
    b1t *= opts->beta1, b2t *= opts->beta2;
    lr = opts->learning_rate * sqrt(1 - b2t) / (1 - b1t);
    for (j = 0; j < count; j++) {
      int is_bias = (j >= b1_from && j < w2_from) || j >= b2_from;
      double gj = g[j] / (double)n + (is_bias ? 0 : opts->weight_decay * w[j]);
      m[j] = opts->beta1 * m[j] + (1 - opts->beta1) * gj;
      v[j] = opts->beta2 * v[j] + (1 - opts->beta2) * gj * gj;
      w[j] -= lr * m[j] / (sqrt(v[j]) + opts->epsilon);
    }
  }
  if (result) {
    size_t right = 0;
    loss = 0;
    for (i = 0; i < n; i++) {
      size_t o;
      /* the classify scratch is hidden followed by out */
      right += gp_nn_classify(nn, x + i * nn->in, hidden) == labels[i];
      for (o = 0; o < nn->out; o++)
        loss += cross_entropy(out[o], o == labels[i]);
    }
    result->loss = loss / (double)n;
    result->accuracy = (double)right / (double)n;
  }
  gp_free(&nn->alloc, block, scratch_n * sizeof *block);
  return GP_OK;
}
