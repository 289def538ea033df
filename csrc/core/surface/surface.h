/*
 * surface.h -- machine-learned scaling surfaces (Wu, Greathouse, Lyashevsky,
 * Jayasena, Chiou: "GPGPU Performance and Power Estimation Using Machine
 * Learning", HPCA 2015, Sec. III; ../shared/reference/wu-spec.md).
 *
 * A kernel measured once at a base configuration (CU count, engine clock,
 * memory clock) is predicted at any other configuration of the training
 * grid: a classifier per cluster set maps the kernel's base counters to a
 * cluster, and the clusters' centroid scaling values scale the base value
 * along a fixed path.  One model per quantity (execution time or power)
 * and base configuration.
 *
 * Layout conventions:
 *  - A grid has three ascending axes: CU counts (GP_SURF_CU), engine clocks
 *    (GP_SURF_ENGINE) and memory clocks (GP_SURF_MEMORY).  Configuration
 *    (c, e, m) has index (c x ne + e) x nm + m.
 *  - Frequency scaling values of CU count c (Sec. III-B, Fig. 7), nm x
 *    (ne - 1) engine values then ne x (nm - 1) memory values:
 *      engine  e[r][k] = t(c, E_k+1, M_r) / t(c, E_k, M_r)  (row r: memory)
 *      memory  m[r][k] = t(c, E_r, M_k+1) / t(c, E_r, M_k)  (row r: engine)
 *  - CU scaling values at the base clocks (Fig. 8), nc - 1 of them:
 *      cu[k] = t(C_k+1, E_b, M_b) / t(C_k, E_b, M_b)
 *  - Cluster sets: one per CU count (its frequency values) and the CU set,
 *    last (Sec. III-C).
 *
 * The core never includes a trace, simulator or GPUMech header: a dataset
 * is numbers, wherever they came from.
 */
#ifndef GP_SURFACE_H
#define GP_SURFACE_H

#include "gp_common.h"
#include "num/neighbours.h"
#include "num/nn.h"

enum { GP_SURF_CU = 0, GP_SURF_ENGINE = 1, GP_SURF_MEMORY = 2 };

#define GP_SURF_MAX_AXIS 64        /* values per grid axis */
#define GP_SURF_MAX_FEATURES 256   /* classifier inputs */
#define GP_SURF_MAX_K 1024         /* clusters per set */
#define GP_SURF_MAX_QUANTITIES 4   /* time, power, ... per dataset */
#define GP_SURF_MAX_REFS 4096      /* the neighbour classifier's reference kernels */
#define GP_SURF_MAX_SPACE 4096     /* the neighbour classifier's scaling space: values
                                      per point (every set's scaling values) */

typedef struct gp_surf_grid {
  uint32_t n[3];                     /* values per axis */
  double axis[3][GP_SURF_MAX_AXIS];  /* strictly ascending, positive */
} gp_surf_grid;

/* Checks sizes (1..GP_SURF_MAX_AXIS) and strictly ascending positive
 * values; the message names the axis. */
int gp_surf_grid_check(const gp_surf_grid *g, gp_error *err);
/* nc x ne x nm */
size_t gp_surf_configs(const gp_surf_grid *g);
size_t gp_surf_config_index(const gp_surf_grid *g, uint32_t c, uint32_t e, uint32_t m);
/* The position of `value` on axis `a`, or -1 when it is not a grid value. */
int gp_surf_axis_find(const gp_surf_grid *g, int a, double value);

/* ---------------------------------------------------------------------------
 * Datasets
 * ------------------------------------------------------------------------- */

typedef struct gp_surf_data {
  gp_alloc alloc;
  gp_surf_grid grid;
  uint32_t kernels, features, quantities;
  double *values;   /* quantities x kernels x configs: [(q x kernels + k) x G + g] */
  double *counters; /* kernels x configs x features (NaN: not measured) */
} gp_surf_data;

/* Allocates a dataset (values 0, counters NaN); free with gp_surf_data_free. */
int gp_surf_data_alloc(gp_surf_data *d, const gp_alloc *alloc, const gp_surf_grid *grid,
                       uint32_t kernels, uint32_t features, uint32_t quantities, gp_error *err);
void gp_surf_data_free(gp_surf_data *d);
/* Every value finite and > 0 (ratios of them are the scaling values);
 * the message names the quantity, kernel and configuration by index. */
int gp_surf_data_check(const gp_surf_data *d, gp_error *err);
const double *gp_surf_data_tensor(const gp_surf_data *d, uint32_t quantity, uint32_t kernel);

/* ---------------------------------------------------------------------------
 * Scaling values and the prediction path (scaling.c)
 * ------------------------------------------------------------------------- */

size_t gp_surf_freq_dim(const gp_surf_grid *g); /* nm (ne - 1) + ne (nm - 1) */
size_t gp_surf_cu_dim(const gp_surf_grid *g);   /* nc - 1 */

/* One kernel's frequency scaling values at CU index c, from its tensor t
 * (one value per configuration). */
void gp_surf_freq_values(const gp_surf_grid *g, const double *t, uint32_t c, double *out);
/* One kernel's CU scaling values at engine index e and memory index m. */
void gp_surf_cu_values(const gp_surf_grid *g, const double *t, uint32_t e, uint32_t m,
                       double *out);

/* The factors one set's values give from the base to each of its
 * targets, the set's part of gp_surf_path: for a frequency set (the freq
 * values of one CU count) ne x nm factors, target (e, m) at [e x nm + m];
 * for the CU set nc factors, target c at [c]. */
void gp_surf_freq_factors(const gp_surf_grid *g, const double *freq, const uint32_t base[3],
                          double *out);
void gp_surf_cu_factors(const gp_surf_grid *g, const double *cu, const uint32_t base[3],
                        double *out);

/* The factor that scales a value at base (c, e, m) to target (c, e, m)
 * (wu-spec.md section 2): CU values first (cu, at the base clocks), then
 * engine values of the target CU count (freq) along the base memory row,
 * then its memory values along the target engine row (Eq. 1 as
 * t33 = t00 prod_j e[0][j] prod_i m[3][i]: the telescoping reading of the
 * paper's m_{i,2}).  Stepping down multiplies by each value's reciprocal. */
double gp_surf_path(const gp_surf_grid *g, const double *cu, const double *freq,
                    const uint32_t base[3], const uint32_t target[3]);

/* ---------------------------------------------------------------------------
 * Models (train.c, predict.c, model_io.c)
 * ------------------------------------------------------------------------- */

/* How a model's sets pick a kernel's cluster from its base counters. */
typedef enum gp_surf_classifier {
  GP_SURF_PAPER = 1,     /* Wu et al.'s network per set (Sec. III-D, Fig. 9) */
  GP_SURF_NEIGHBOURS = 2 /* per set the cluster of least expected cost over the
                            training kernels, weighted by a Gaussian of their
                            distance in the scaling space: the counters mapped
                            by a ridge regression to the scaling values they
                            predict (num/neighbours.h, num/ridge.h) */
} gp_surf_classifier;

typedef struct gp_surf_set {
  uint32_t k;          /* clusters: min(requested, training kernels), 1 if dim == 0 */
  uint32_t dim;        /* scaling values per centroid */
  double *centroids;   /* k x dim: each cluster's mean scaling values (Sec. III-C) */
  gp_nn net;           /* GP_SURF_PAPER: features -> k sigmoid -> k sigmoid; empty
                          when k == 1 */
  double *costs;       /* GP_SURF_NEIGHBOURS, k > 1: refs x k, the cost of giving
                          reference kernel i cluster j (gp_surf_set_cost) */
  double *prior;       /* GP_SURF_NEIGHBOURS, k > 1: k, each cluster's mean cost
                          over the references (derived from costs, not stored) */
} gp_surf_set;

typedef struct gp_surf_model {
  gp_alloc alloc;
  char quantity[32];       /* what it predicts: "time", "power" */
  gp_surf_grid grid;
  uint32_t base[3];        /* the base configuration's indices */
  uint32_t k;              /* clusters requested per set */
  uint32_t features;
  char *names;             /* the features' names, each NUL-terminated */
  size_t names_len;
  double *fmin, *fmax;     /* the training set's range per feature */
  uint32_t nsets;          /* grid.n[CU] frequency sets + the CU set */
  gp_surf_set *sets;
  uint32_t classifier;     /* gp_surf_classifier */
  uint32_t refs;           /* GP_SURF_NEIGHBOURS: reference (training) kernels */
  gp_nb_setting setting;   /* GP_SURF_NEIGHBOURS: the bandwidth h^2 and the prior's
                              mass lambda */
  uint32_t space;          /* GP_SURF_NEIGHBOURS: the scaling space's dimension */
  double ridge;            /* GP_SURF_NEIGHBOURS: the map's ridge penalty */
  double *map;             /* GP_SURF_NEIGHBOURS: (features + 1) x space, the ridge
                              map from normalised counters (and 1) to the
                              scaling space (gp_ridge_apply) */
  double *ref_points;      /* GP_SURF_NEIGHBOURS: refs x space, the references'
                              mapped counters */
  /* training state, in memory only (never saved): the dataset kernels the
   * model was trained on and their k-means clusters, set by set, for the
   * oracle classifier of Sec. V-B2 */
  uint32_t trained;
  uint32_t *train_kernels;  /* trained */
  uint32_t *train_assign;   /* trained x nsets */
} gp_surf_model;

typedef struct gp_surf_train_opts {
  uint32_t k;            /* clusters per set (Sec. V-A: 12) */
  uint64_t seed;         /* k-means++ and network initialisation */
  unsigned restarts;     /* k-means++ restarts per set (lowest inertia wins) */
  unsigned max_iter;     /* Lloyd iterations per restart */
  uint32_t classifier;   /* gp_surf_classifier */
  gp_nn_train_opts nn;   /* GP_SURF_PAPER: the networks' training */
  const uint32_t *groups; /* GP_SURF_NEIGHBOURS: per training kernel its group
                             (a family), held out together when the bandwidth
                             is chosen; NULL: each kernel its own group */
} gp_surf_train_opts;

/* The neighbour classifier's settings tried by leave-one-group-out
 * validation: every bandwidth (h^2 in the scaling space, where a squared
 * distance is the mean squared difference of two kernels' log scaling
 * values; the last gives every training kernel the same weight) with every
 * prior mass (0: none); and the ridge penalties tried for the map. */
#define GP_SURF_BANDWIDTHS 10
#define GP_SURF_PRIORS 4
#define GP_SURF_SETTINGS (GP_SURF_BANDWIDTHS * GP_SURF_PRIORS)
#define GP_SURF_RIDGES 8
extern const double gp_surf_bandwidths[GP_SURF_BANDWIDTHS];
extern const double gp_surf_priors[GP_SURF_PRIORS];
extern const double gp_surf_ridges[GP_SURF_RIDGES];

/* k = 12, seed = 1, restarts = 10, max_iter = 100, classifier
 * GP_SURF_NEIGHBOURS, groups NULL, gp_nn_train_opts_default with
 * stop_when_separated = 1. */
void gp_surf_train_opts_default(gp_surf_train_opts *o);

/* The cost of describing a kernel's set values `own` by a centroid's
 * `centroid` (the same layout; set s < nc a frequency set, s == nc the CU
 * set, base the model's base): the mean over the set's targets other than
 * the base of |factor(centroid) / factor(own) - 1|, the relative error
 * that choice alone gives there.  scratch: 2 x max(ne x nm, nc) doubles. */
double gp_surf_set_cost(const gp_surf_grid *g, uint32_t s, const uint32_t base[3],
                        const double *own, const double *centroid, double *scratch);

/* Builds a model of quantity q of the dataset from the n kernels listed
 * (dataset indices), at base configuration `base` (indices): for every set
 * the kernels' scaling values, k-means (Euclidean on the raw ratios,
 * k-means++ seeded, restarts), the centroids, then the classifier on the
 * kernels' base counters (min-max normalised over them): the paper's
 * network trained to give each kernel's cluster, or the neighbour
 * classifier (every cluster's cost to every kernel; the ridge map of the
 * counters into the scaling space, where every set's scaling values are
 * logs scaled by 1/sqrt(space); its setting by leave-one-group-out
 * validation).  names: the features' names, NUL-terminated one after
 * another (names_len bytes in all).  Errors: a kernel without counters at
 * the base, values that are not positive, sizes out of range. */
int gp_surf_train(const gp_surf_data *d, uint32_t q, const char *quantity, const uint32_t *kernels,
                  uint32_t n, const uint32_t base[3], const char *names, size_t names_len,
                  const gp_surf_train_opts *opts, const gp_alloc *alloc, gp_surf_model **out,
                  gp_error *err);
void gp_surf_model_free(gp_surf_model *m);
/* A model shell (for gp_surf_train and the reader): grid, base, features
 * and set count given, every array sized, the sets empty; NULL when out of
 * memory. */
gp_surf_model *gp_surf_model_new(const gp_alloc *alloc, const char *quantity,
                                 const gp_surf_grid *grid, const uint32_t base[3], uint32_t k,
                                 const char *names, size_t names_len, uint32_t features,
                                 uint32_t trained);
/* The reference points (refs x space) and the map ((features + 1) x
 * space) of a GP_SURF_NEIGHBOURS model: allocated; GP_ERR when out of
 * memory. */
int gp_surf_model_alloc_refs(gp_surf_model *m, uint32_t refs, uint32_t space);
/* The scaling space's dimension of a grid: every frequency set's values and
 * the CU set's (nc x freq_dim + cu_dim). */
size_t gp_surf_space_dim(const gp_surf_grid *g);
/* Set s's prior (each cluster's mean cost) from its costs; GP_ERR when out
 * of memory. */
int gp_surf_set_prior(gp_surf_model *m, gp_surf_set *set);

/* The cluster of every set for a kernel's counters at the base (model
 * feature order, raw values; clamped by the stored range). */
void gp_surf_classify(const gp_surf_model *m, const double *counters, uint32_t *choice);
/* The scaling factor from the base to target (indices) for those clusters. */
double gp_surf_factor(const gp_surf_model *m, const uint32_t *choice, const uint32_t target[3]);
/* base_value x factor, classifying first. */
double gp_surf_predict(const gp_surf_model *m, const double *counters, double base_value,
                       const uint32_t target[3]);
/* n kernels (counters n x features, base_values n) x t targets (t x 3
 * indices): out[i x t + j].  Classifies each kernel once. */
void gp_surf_predict_batch(const gp_surf_model *m, const double *counters,
                           const double *base_values, size_t n, const uint32_t *targets, size_t t,
                           double *out);

#define GP_SURF_BINS 11 /* [0,10%), [10,20%), ..., [90,100%), >= 100% (Fig. 14) */

/* How gp_surf_evaluate picks a kernel's clusters. */
typedef enum gp_surf_choice {
  GP_SURF_CLASSIFIER, /* the networks, from the base counters (the model's use) */
  GP_SURF_ORACLE,     /* the kernel's own k-means clusters (Sec. V-B2; training
                         kernels only) */
  GP_SURF_NEAREST     /* per set the centroid nearest the kernel's own scaling
                         values (Euclidean, ties to the lower cluster): what a
                         perfect classifier could pick for any kernel, so the
                         clustering error of unseen kernels */
} gp_surf_choice;

typedef struct gp_surf_eval {
  double mean;            /* mean |predicted - measured| / measured */
  double max;
  uint64_t count;         /* kernel x target pairs */
  uint64_t histogram[GP_SURF_BINS];
} gp_surf_eval;

/* Predicts quantity q of the n listed kernels (dataset indices) from the
 * model's base to every other configuration of the grid and compares with
 * the dataset (Sec. V-A: the base is not a target), the clusters picked as
 * `how` says.  per_kernel (n, may be NULL): each kernel's mean error. */
int gp_surf_evaluate(const gp_surf_model *m, const gp_surf_data *d, uint32_t q,
                     const uint32_t *kernels, uint32_t n, gp_surf_choice how,
                     double *per_kernel, gp_surf_eval *out, gp_error *err);

/* The model file (model_io.c): "GPSURFMD", a format version, the payload's
 * length and digest, then the models.  gp_surf_encode writes count models
 * into a new buffer (free with gp_free(alloc, bytes, len)); gp_surf_decode
 * checks everything (version first: another version is refused with a
 * message saying so) and returns count new models (free each with
 * gp_surf_model_free and the array with gp_free(alloc, models, count x
 * sizeof *models)).  `name` is used in messages. */
#define GP_SURF_FILE_VERSION 3 /* 2: the classifier kind; 3: the neighbour
                                  classifier's scaling space (its map); versions
                                  1 and 2 still read */
int gp_surf_encode(gp_surf_model *const *models, uint32_t count, const gp_alloc *alloc,
                   unsigned char **bytes, size_t *len, gp_error *err);
int gp_surf_decode(const unsigned char *bytes, size_t len, const char *name,
                   const gp_alloc *alloc, gp_surf_model ***models, uint32_t *count,
                   gp_error *err);
/* Rewrites the length and digest fields of an encoded buffer so it passes
 * those checks (for the fuzzer, which mutates the rest). */
void gp_surf_seal(unsigned char *bytes, size_t len);

#endif
