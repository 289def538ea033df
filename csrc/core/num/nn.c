/*
 * nn.c -- the three-layer sigmoid network of Wu et al. (Sec. III-D, Fig.
 * 9): forward pass, argmax, and full-batch backpropagation with Adam.
 */
#include "nn.h"
#include "fexp.h"
#include "rng.h"

#include <math.h>
#include <string.h>

static double sigmoid(double z) { return 1.0 / (1.0 + gp_exp_fixed(-z)); }

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
  o->epochs = 1000;
  o->learning_rate = 0.1;
  o->beta1 = 0.9;
  o->beta2 = 0.999;
  o->epsilon = 1e-8;
  o->weight_decay = 1e-4;
  o->stop_when_separated = 0;
}

/* Training works on whole columns: the inputs, activations and error terms
 * are stored transposed (one row of n values per node), so every inner loop
 * runs over the n examples in memory order.  The full-batch gradient of the
 * mean cross-entropy with sigmoid outputs and one-hot targets: the output
 * error term is out - target, the hidden one is backpropagated through the
 * sigmoid's derivative h (1 - h). */
typedef struct batch {
  size_t n;
  double *xt;    /* in x n: the inputs, transposed */
  double *ht;    /* hidden x n */
  double *ot;    /* out x n: outputs, then their error terms */
  double *dht;   /* hidden x n: hidden error terms */
} batch;

/* Forward pass over the batch into b->ht and b->ot. */
static void batch_forward(const gp_nn *nn, batch *b) {
  size_t h, j, o, i, n = b->n;
  for (h = 0; h < nn->hidden; h++) {
    double *z = b->ht + h * n;
    const double *w = nn->w1 + h * nn->in;
    for (i = 0; i < n; i++)
      z[i] = nn->b1[h];
    for (j = 0; j < nn->in; j++) {
      const double *x = b->xt + j * n, wj = w[j];
      for (i = 0; i < n; i++)
        z[i] += wj * x[i];
    }
    for (i = 0; i < n; i++)
      z[i] = sigmoid(z[i]);
  }
  for (o = 0; o < nn->out; o++) {
    double *z = b->ot + o * n;
    const double *w = nn->w2 + o * nn->hidden;
    for (i = 0; i < n; i++)
      z[i] = nn->b2[o];
    for (h = 0; h < nn->hidden; h++) {
      const double *a = b->ht + h * n, wh = w[h];
      for (i = 0; i < n; i++)
        z[i] += wh * a[i];
    }
    for (i = 0; i < n; i++)
      z[i] = sigmoid(z[i]);
  }
}

/* Sums over the examples in four interleaved partial sums, combined in a
 * fixed order: the same result every run, without one long chain of
 * dependent additions. */
static double dot(const double *a, const double *b, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i;
  for (i = 0; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++)
    s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

static double sum(const double *a, size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i;
  for (i = 0; i + 4 <= n; i += 4) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
  }
  for (; i < n; i++)
    s0 += a[i];
  return (s0 + s1) + (s2 + s3);
}

/* The number of examples whose largest output (ties: the lowest index) is
 * their label, from the last forward pass. */
static size_t batch_correct(const gp_nn *nn, const uint32_t *labels, const batch *b) {
  size_t i, o, right = 0, n = b->n;
  for (i = 0; i < n; i++) {
    size_t best = 0;
    for (o = 1; o < nn->out; o++)
      if (b->ot[o * n + i] > b->ot[best * n + i])
        best = o;
    right += best == labels[i];
  }
  return right;
}

/* The summed gradient over the batch into grad (laid out as the weights). */
static void batch_gradient(const gp_nn *nn, const uint32_t *labels, batch *b, gp_nn *grad) {
  size_t h, j, o, i, n = b->n;
  for (o = 0; o < nn->out; o++) {
    double *d = b->ot + o * n;
    for (i = 0; i < n; i++)
      d[i] -= labels[i] == o ? 1.0 : 0.0;
    grad->b2[o] = sum(d, n);
    for (h = 0; h < nn->hidden; h++)
      grad->w2[o * nn->hidden + h] = dot(d, b->ht + h * n, n);
  }
  for (h = 0; h < nn->hidden; h++) {
    double *dh = b->dht + h * n;
    const double *a = b->ht + h * n;
    for (i = 0; i < n; i++)
      dh[i] = 0;
    for (o = 0; o < nn->out; o++) {
      const double *d = b->ot + o * n, w = nn->w2[o * nn->hidden + h];
      for (i = 0; i < n; i++)
        dh[i] += w * d[i];
    }
    for (i = 0; i < n; i++)
      dh[i] *= a[i] * (1 - a[i]);
    grad->b1[h] = sum(dh, n);
    for (j = 0; j < nn->in; j++)
      grad->w1[h * nn->in + j] = dot(dh, b->xt + j * n, n);
  }
}

int gp_nn_train(gp_nn *nn, const double *x, size_t n, const uint32_t *labels,
                const gp_nn_train_opts *opts, gp_nn_train_result *result, gp_error *err) {
  size_t count = weight_count(nn), i, j, e;
  size_t b1_from = nn->hidden * nn->in, w2_from = b1_from + nn->hidden;
  size_t b2_from = w2_from + nn->out * nn->hidden;
  size_t cols = nn->in + 2 * nn->hidden + nn->out;
  size_t scratch_n;
  double *block, *m, *v, b1t = 1, b2t = 1;
  gp_nn grad = *nn;
  batch b;
  if (n == 0)
    return gp_error_set(err, "nn: no training examples");
  for (i = 0; i < n; i++)
    if (labels[i] >= nn->out)
      return gp_error_set(err, "nn: example %zu has label %u, the network has %zu outputs", i,
                          (unsigned)labels[i], nn->out);
  if (n > SIZE_MAX / sizeof(double) / (cols + 3 * count))
    return gp_error_set(err, "nn: %zu examples overflow", n);
  scratch_n = 3 * count + cols * n;
  block = gp_malloc(&nn->alloc, scratch_n * sizeof *block);
  if (!block)
    return gp_error_set(err, "nn: out of memory training on %zu examples", n);
  memset(block, 0, scratch_n * sizeof *block);
  point_into(&grad, block);
  m = block + count, v = m + count;
  b.n = n;
  b.xt = v + count;
  b.ht = b.xt + nn->in * n;
  b.ot = b.ht + nn->hidden * n;
  b.dht = b.ot + nn->out * n;
  for (i = 0; i < n; i++)
    for (j = 0; j < nn->in; j++)
      b.xt[j * n + i] = x[i * nn->in + j];
  for (e = 0; e < opts->epochs; e++) {
    double *w = nn->w1, *g = grad.w1, lr;
    batch_forward(nn, &b);
    if (opts->stop_when_separated && e % 25 == 0 && e > 0 && batch_correct(nn, labels, &b) == n)
      break;
    batch_gradient(nn, labels, &b, &grad);
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
    size_t o;
    double loss = 0;
    batch_forward(nn, &b);
    for (i = 0; i < n; i++)
      for (o = 0; o < nn->out; o++)
        loss += cross_entropy(b.ot[o * n + i], o == labels[i]);
    result->loss = loss / (double)n;
    result->accuracy = (double)batch_correct(nn, labels, &b) / (double)n;
    result->epochs = e;
  }
  gp_free(&nn->alloc, block, scratch_n * sizeof *block);
  return GP_OK;
}
