/*
 * model_io.c -- the scaling-surface model file: a versioned, checksummed,
 * little-endian image that reads back bit for bit.
 *
 *   offset  size  field
 *        0     8  magic "GPSURFMD"
 *        8     4  format version (GP_SURF_FILE_VERSION)
 *       12     4  reserved, 0
 *       16     8  payload length in bytes
 *       24     8  digest of the payload (digest.h)
 *       32     -  payload: u32 model count, then per model its quantity
 *                 name, grid, base, k, feature names and ranges, the
 *                 classifier (version 2: u32 kind; for the neighbour
 *                 classifier u32 reference count, f64 bandwidth and prior
 *                 mass and the references' normalised counters; version 3:
 *                 u32 reference count, u32 scaling-space dimension, f64
 *                 bandwidth, prior mass and ridge penalty, the map
 *                 ((features + 1) x space) and the references' points
 *                 (references x space)), and per set k, dim,
 *                 the centroids and, for k > 1, the network's weights
 *                 (the paper's classifier; version 1 files have only
 *                 these) or the references' costs
 *
 * Integers are unsigned little-endian, reals IEEE-754 doubles stored as
 * their 64-bit pattern; a string is a u32 length and its bytes.
 */
#include "digest.h"
#include "surface.h"

#include <math.h>
#include <string.h>

#define HEADER_BYTES 32
#define MAX_MODELS 64
static const char MAGIC[8] = {'G', 'P', 'S', 'U', 'R', 'F', 'M', 'D'};

/* Writing ------------------------------------------------------------------ */

typedef struct wbuf {
  const gp_alloc *alloc;
  unsigned char *p;
  size_t len, cap;
  int failed;
} wbuf;

static void put_bytes(wbuf *w, const void *data, size_t n) {
  void *buf = w->p;
  if (w->failed || gp_grow(w->alloc, &buf, &w->cap, w->len + n, 1) != GP_OK) {
    w->failed = 1;
    return;
  }
  w->p = buf;
  memcpy(w->p + w->len, data, n);
  w->len += n;
}

static void put_u64(wbuf *w, uint64_t v) {
  unsigned char b[8];
  int i;
  for (i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  put_bytes(w, b, 8);
}

static void put_u32(wbuf *w, uint32_t v) {
  unsigned char b[4];
  int i;
  for (i = 0; i < 4; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  put_bytes(w, b, 4);
}

static void put_f64s(wbuf *w, const double *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &v[i], 8);
    put_u64(w, bits);
  }
}

static void put_model(wbuf *w, const gp_surf_model *m) {
  uint32_t a, s;
  put_u32(w, (uint32_t)strlen(m->quantity));
  put_bytes(w, m->quantity, strlen(m->quantity));
  for (a = 0; a < 3; a++)
    put_u32(w, m->grid.n[a]);
  for (a = 0; a < 3; a++)
    put_f64s(w, m->grid.axis[a], m->grid.n[a]);
  for (a = 0; a < 3; a++)
    put_u32(w, m->base[a]);
  put_u32(w, m->k);
  put_u32(w, m->features);
  put_u32(w, (uint32_t)m->names_len);
  put_bytes(w, m->names, m->names_len);
  put_f64s(w, m->fmin, m->features);
  put_f64s(w, m->fmax, m->features);
  put_u32(w, m->classifier);
  if (m->classifier == GP_SURF_NEIGHBOURS) {
    put_u32(w, m->refs);
    put_u32(w, m->space);
    put_f64s(w, &m->setting.h2, 1);
    put_f64s(w, &m->setting.lambda, 1);
    put_f64s(w, &m->ridge, 1);
    put_f64s(w, m->map, (size_t)(m->features + 1) * m->space);
    put_f64s(w, m->ref_points, (size_t)m->refs * m->space);
  }
  for (s = 0; s < m->nsets; s++) {
    const gp_surf_set *set = &m->sets[s];
    const gp_nn *net = &set->net;
    put_u32(w, set->k);
    put_u32(w, set->dim);
    put_f64s(w, set->centroids, (size_t)set->k * set->dim);
    if (set->k > 1 && m->classifier == GP_SURF_NEIGHBOURS) {
      put_f64s(w, set->costs, (size_t)m->refs * set->k);
    } else if (set->k > 1) {
      put_f64s(w, net->w1, net->hidden * net->in);
      put_f64s(w, net->b1, net->hidden);
      put_f64s(w, net->w2, net->out * net->hidden);
      put_f64s(w, net->b2, net->out);
    }
  }
}

static void store_u64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

void gp_surf_seal(unsigned char *bytes, size_t len) {
  if (len < HEADER_BYTES)
    return;
  store_u64(bytes + 16, len - HEADER_BYTES);
  store_u64(bytes + 24, gp_digest_bytes(bytes + HEADER_BYTES, len - HEADER_BYTES));
}

int gp_surf_encode(gp_surf_model *const *models, uint32_t count, const gp_alloc *alloc,
                   unsigned char **bytes, size_t *len, gp_error *err) {
  wbuf w;
  uint32_t i;
  unsigned char header[HEADER_BYTES];
  *bytes = NULL, *len = 0;
  if (count == 0 || count > MAX_MODELS)
    return gp_error_set(err, "surface: %u models to write (1 to %d)", (unsigned)count,
                        MAX_MODELS);
  memset(&w, 0, sizeof w);
  w.alloc = alloc;
  memset(header, 0, sizeof header);
  memcpy(header, MAGIC, sizeof MAGIC);
  header[8] = GP_SURF_FILE_VERSION;
  put_bytes(&w, header, sizeof header);
  put_u32(&w, count);
  for (i = 0; i < count; i++)
    put_model(&w, models[i]);
  if (w.failed) {
    gp_free(alloc, w.p, w.cap);
    return gp_error_set(err, "surface: out of memory writing a model");
  }
  gp_surf_seal(w.p, w.len);
  /* hand back a buffer of exactly len bytes, so it frees with its length */
  *bytes = gp_realloc(alloc, w.p, w.cap, w.len);
  if (!*bytes) {
    gp_free(alloc, w.p, w.cap);
    return gp_error_set(err, "surface: out of memory writing a model");
  }
  *len = w.len;
  return GP_OK;
}

/* Reading ------------------------------------------------------------------ */

typedef struct rbuf {
  const unsigned char *p;
  size_t left;
  const char *name;
  gp_error *err;
  int failed;
} rbuf;

/* Records the first problem; later reads return zeros. */
static int fail(rbuf *r, const char *what) {
  if (!r->failed)
    gp_error_set(r->err, "%s: damaged surface model: %s", r->name, what);
  r->failed = 1;
  return 0;
}

static const unsigned char *take(rbuf *r, size_t n) {
  const unsigned char *p = r->p;
  if (r->failed || n > r->left) {
    fail(r, "it ends inside a field");
    return NULL;
  }
  r->p += n, r->left -= n;
  return p;
}

static uint64_t load_u64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

static uint32_t get_u32(rbuf *r) {
  const unsigned char *p = take(r, 4);
  return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
           : 0;
}

/* Reads n doubles; each must be finite (and > 0 when `positive`). */
static void get_f64s(rbuf *r, double *out, size_t n, int positive, const char *what) {
  size_t i;
  if (r->failed)
    return;
  if (n > r->left / 8) {
    fail(r, "it ends inside an array");
    return;
  }
  for (i = 0; i < n; i++) {
    uint64_t bits = load_u64(take(r, 8)); /* n x 8 bytes are there */
    memcpy(&out[i], &bits, 8);
    if (!isfinite(out[i]) || (positive && out[i] <= 0)) {
      fail(r, what);
      return;
    }
  }
}

/* A u32 that must lie in [lo, hi]. */
static uint32_t get_count(rbuf *r, uint32_t lo, uint32_t hi, const char *what) {
  uint32_t v = get_u32(r);
  if (!r->failed && (v < lo || v > hi))
    fail(r, what);
  return r->failed ? lo : v;
}

/* Reads one set of model m (its dim must be `dim`). */
static void get_set(rbuf *r, gp_surf_model *m, gp_surf_set *set, size_t dim) {
  gp_error nn_err;
  size_t values;
  set->k = get_count(r, 1, m->k, "a set's cluster count exceeds the model's");
  set->dim = get_count(r, (uint32_t)dim, (uint32_t)dim, "a set's size disagrees with the grid");
  if (r->failed)
    return;
  if (dim == 0 && set->k != 1) {
    fail(r, "a set without scaling values has more than one cluster");
    return;
  }
  values = (size_t)set->k * set->dim;
  if (values > r->left / 8) {
    fail(r, "it ends inside a set's centroids");
    return;
  }
  set->centroids = gp_malloc(&m->alloc, (values + 1) * sizeof *set->centroids);
  if (!set->centroids) {
    set->k = 0;
    fail(r, "out of memory");
    return;
  }
  get_f64s(r, set->centroids, values, 1, "a centroid scaling value is not a positive number");
  if (r->failed || set->k == 1)
    return;
  if (m->classifier == GP_SURF_NEIGHBOURS) {
    size_t i, costs = (size_t)m->refs * set->k;
    if (costs > r->left / 8) {
      fail(r, "it ends inside a set's costs");
      return;
    }
    set->costs = gp_malloc(&m->alloc, (costs + 1) * sizeof *set->costs);
    if (!set->costs) {
      fail(r, "out of memory");
      return;
    }
    get_f64s(r, set->costs, costs, 0, "a classifier cost is not finite");
    for (i = 0; i < costs && !r->failed; i++)
      if (set->costs[i] < 0)
        fail(r, "a classifier cost is negative");
    if (!r->failed && gp_surf_set_prior(m, set) != GP_OK)
      fail(r, "out of memory");
    return;
  }
  if (gp_nn_alloc(&set->net, &m->alloc, m->features, set->k, set->k, &nn_err) != GP_OK) {
    fail(r, nn_err.msg);
    return;
  }
  get_f64s(r, set->net.w1, set->net.hidden * set->net.in, 0, "a network weight is not finite");
  get_f64s(r, set->net.b1, set->net.hidden, 0, "a network weight is not finite");
  get_f64s(r, set->net.w2, set->net.out * set->net.hidden, 0, "a network weight is not finite");
  get_f64s(r, set->net.b2, set->net.out, 0, "a network weight is not finite");
}

/* The names must be `features` NUL-terminated strings filling names_len. */
static int names_ok(const unsigned char *names, size_t len, uint32_t features) {
  uint32_t n = 0;
  size_t i;
  if (len == 0 || names[len - 1] != '\0' || names[0] == '\0')
    return 0;
  for (i = 0; i < len; i++)
    if (names[i] == '\0') {
      n++;
      if (i + 1 < len && names[i + 1] == '\0')
        return 0; /* an empty name */
    }
  return n == features;
}

/* The identity map of a version-2 neighbour model, whose references are
 * normalised counters: its scaling space is the counters themselves. */
static void identity_map(gp_surf_model *m) {
  size_t j, F = m->features;
  memset(m->map, 0, (F + 1) * F * sizeof *m->map);
  for (j = 0; j < F; j++)
    m->map[j * F + j] = 1;
}

/* The classifier of a version-2 or -3 model: its kind, and the neighbour
 * classifier's references, setting and (version 3) scaling space. */
static void get_classifier(rbuf *r, gp_surf_model *m, uint32_t version) {
  size_t i, values, map_values;
  uint32_t refs, space;
  m->classifier = get_count(r, GP_SURF_PAPER, GP_SURF_NEIGHBOURS, "the classifier kind");
  if (r->failed || m->classifier != GP_SURF_NEIGHBOURS)
    return;
  refs = get_count(r, 1, GP_SURF_MAX_REFS, "the reference kernel count");
  space = version >= 3 ? get_count(r, 1, GP_SURF_MAX_SPACE, "the scaling space's dimension")
                       : m->features;
  if (r->failed)
    return;
  map_values = version >= 3 ? ((size_t)m->features + 1) * space : 0;
  if ((size_t)refs * space + map_values > r->left / 8) {
    fail(r, "it ends inside the reference kernels");
    return;
  }
  if (gp_surf_model_alloc_refs(m, refs, space) != GP_OK) {
    m->refs = 0;
    fail(r, "out of memory");
    return;
  }
  get_f64s(r, &m->setting.h2, 1, 1, "the classifier's bandwidth is not a positive number");
  get_f64s(r, &m->setting.lambda, 1, 0, "the classifier's prior mass is not finite");
  if (!r->failed && m->setting.lambda < 0)
    fail(r, "the classifier's prior mass is negative");
  values = (size_t)m->refs * space;
  if (version < 3) {
    identity_map(m);
    get_f64s(r, m->ref_points, values, 0, "a reference kernel's counter is not finite");
    for (i = 0; i < values && !r->failed; i++)
      if (m->ref_points[i] < 0 || m->ref_points[i] > 1)
        fail(r, "a reference kernel's normalised counter is outside [0, 1]");
    return;
  }
  get_f64s(r, &m->ridge, 1, 0, "the classifier's ridge penalty is not finite");
  if (!r->failed && m->ridge < 0)
    fail(r, "the classifier's ridge penalty is negative");
  get_f64s(r, m->map, map_values, 0, "a value of the classifier's map is not finite");
  get_f64s(r, m->ref_points, values, 0, "a reference kernel's point is not finite");
}

static gp_surf_model *get_model(rbuf *r, const gp_alloc *alloc, uint32_t version) {
  char quantity[32];
  gp_surf_grid grid;
  gp_error grid_err;
  uint32_t base[3], k, features, names_len, a, s, qlen;
  const unsigned char *q, *names;
  gp_surf_model *m;
  memset(&grid, 0, sizeof grid);
  qlen = get_count(r, 1, sizeof quantity - 1, "the quantity name's length");
  q = take(r, qlen);
  if (r->failed)
    return NULL;
  memcpy(quantity, q, qlen);
  quantity[qlen] = '\0';
  if (strlen(quantity) != qlen)
    return fail(r, "the quantity name holds a NUL byte"), NULL;
  for (a = 0; a < 3; a++)
    grid.n[a] = get_count(r, 1, GP_SURF_MAX_AXIS, "a grid axis size");
  for (a = 0; a < 3; a++)
    get_f64s(r, grid.axis[a], grid.n[a], 1, "a grid value is not a positive number");
  if (!r->failed && gp_surf_grid_check(&grid, &grid_err) != GP_OK)
    return fail(r, grid_err.msg), NULL;
  for (a = 0; a < 3; a++)
    base[a] = get_count(r, 0, grid.n[a] - 1, "the base configuration is outside the grid");
  k = get_count(r, 1, GP_SURF_MAX_K, "the cluster count");
  features = get_count(r, 1, GP_SURF_MAX_FEATURES, "the feature count");
  names_len = get_count(r, 2, (uint32_t)(r->left < UINT32_MAX ? r->left : UINT32_MAX),
                        "the feature names' length");
  names = take(r, names_len);
  if (r->failed)
    return NULL;
  if (!names_ok(names, names_len, features))
    return fail(r, "the feature names do not match the feature count"), NULL;
  m = gp_surf_model_new(alloc, quantity, &grid, base, k, (const char *)names, names_len,
                        features, 0);
  if (!m)
    return fail(r, "out of memory"), NULL;
  get_f64s(r, m->fmin, features, 0, "a feature range is not finite");
  get_f64s(r, m->fmax, features, 0, "a feature range is not finite");
  for (a = 0; a < features && !r->failed; a++)
    if (m->fmin[a] > m->fmax[a])
      fail(r, "a feature's minimum exceeds its maximum");
  if (version >= 2 && !r->failed)
    get_classifier(r, m, version);
  for (s = 0; s < m->nsets && !r->failed; s++)
    get_set(r, m, &m->sets[s],
            s + 1 < m->nsets ? gp_surf_freq_dim(&grid) : gp_surf_cu_dim(&grid));
  if (r->failed) {
    gp_surf_model_free(m);
    return NULL;
  }
  return m;
}

/* The header: magic, version (refused with a clear message), length and
 * digest.  Returns GP_OK with *version set, or sets an error. */
static int check_header(const unsigned char *bytes, size_t len, const char *name,
                        uint32_t *version, gp_error *err) {
  uint64_t payload;
  if (len < HEADER_BYTES || memcmp(bytes, MAGIC, sizeof MAGIC) != 0)
    return gp_error_set(err, "%s: not a gpush surface model (no GPSURFMD header)", name);
  *version = (uint32_t)bytes[8] | (uint32_t)bytes[9] << 8 | (uint32_t)bytes[10] << 16 |
             (uint32_t)bytes[11] << 24;
  if (*version < 1 || *version > GP_SURF_FILE_VERSION)
    return gp_error_set(err, "%s: a surface model of format version %u; this gpush (%s) reads "
                        "versions 1 to %d: train it again with `gpush ml train`", name,
                        (unsigned)*version, gp_version(), GP_SURF_FILE_VERSION);
  payload = load_u64(bytes + 16);
  if (payload != len - HEADER_BYTES)
    return gp_error_set(err, "%s: truncated or padded: the header gives %llu payload bytes, "
                        "the file holds %zu", name, (unsigned long long)payload,
                        len - HEADER_BYTES);
  if (load_u64(bytes + 24) != gp_digest_bytes(bytes + HEADER_BYTES, len - HEADER_BYTES))
    return gp_error_set(err, "%s: checksum mismatch: the model file is damaged", name);
  return GP_OK;
}

int gp_surf_decode(const unsigned char *bytes, size_t len, const char *name,
                   const gp_alloc *alloc, gp_surf_model ***models, uint32_t *count,
                   gp_error *err) {
  rbuf r;
  uint32_t n, i, version = 0;
  gp_surf_model **list;
  *models = NULL, *count = 0;
  if (check_header(bytes, len, name, &version, err) != GP_OK)
    return GP_ERR;
  r.p = bytes + HEADER_BYTES, r.left = len - HEADER_BYTES, r.name = name, r.err = err;
  r.failed = 0;
  n = get_count(&r, 1, MAX_MODELS, "the model count");
  if (r.failed)
    return GP_ERR;
  list = gp_malloc(alloc, n * sizeof *list);
  if (!list)
    return gp_error_set(err, "%s: out of memory", name);
  for (i = 0; i < n; i++) {
    list[i] = get_model(&r, alloc, version);
    if (!list[i])
      break;
  }
  if (i == n && r.left != 0)
    fail(&r, "bytes follow the last model");
  if (r.failed) { /* list[0..i) were read */
    uint32_t j;
    for (j = 0; j < i; j++)
      gp_surf_model_free(list[j]);
    gp_free(alloc, list, n * sizeof *list);
    return GP_ERR;
  }
  *models = list, *count = n;
  return GP_OK;
}
