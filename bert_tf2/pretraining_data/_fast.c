/* Compiled instance making for create_pretraining_data (see fast.py).
 *
 * Why C: making instances is a loop of small random draws (a shuffle of
 * ~115 candidate positions per instance, then one to three draws per masked
 * token). In Python each draw costs an interpreter round trip, which is most
 * of the run; the draws themselves must stay exactly those of
 * `random.Random`, or the instances differ from the original's. So this
 * module runs the same generator (MT19937, state taken from and given back
 * to a `random.Random` via getstate/setstate) and the same derived draws as
 * CPython's random module:
 *   random():        a = next >> 5, b = next >> 6, (a * 2**26 + b) / 2**53
 *   _randbelow(n):   k = bit_length(n); r = next >> (32 - k) until r < n
 *   randint(a, b):   a + _randbelow(b - a + 1)
 *   shuffle(x):      for i = len-1 .. 1: swap x[i], x[_randbelow(i + 1)]
 * and the algorithm of instances.py / masking.py (that file documents it);
 * records are encoded as writer.ExampleEncoder encodes them. fast.py checks
 * all of it against the Python code at first use and falls back to Python
 * on any difference; tests/pretraining_data/fast_test.py compares whole runs.
 *
 * Also: `frame_records`, TFRecord framing with CRC-32C, so that writing the
 * records needs no TensorFlow (whose import is most of a small run's time;
 * writer.py, tested byte-equal to tf.io.TFRecordWriter's files).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ABI_VERSION 2
#define MT_N 624
#define MT_M 397
#define CONTINUATION (1u << 30)

enum { MODE_TOKENS = 0, MODE_WHOLE_WORDS = 1, MODE_WORD_LEVEL = 2 };

/* ---- The Mersenne Twister, as random.Random runs it. ---- */

typedef struct {
  uint32_t mt[MT_N];
  int index;
} MtState;

static uint32_t mt_next(MtState *s) {
  uint32_t y;
  if (s->index >= MT_N) {
    int k;
    for (k = 0; k < MT_N; k++) {
      y = (s->mt[k] & 0x80000000u) | (s->mt[(k + 1) % MT_N] & 0x7fffffffu);
      s->mt[k] = s->mt[(k + MT_M) % MT_N] ^ (y >> 1) ^
                 ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    s->index = 0;
  }
  y = s->mt[s->index++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

static double rand_double(MtState *s) {
  uint32_t a = mt_next(s) >> 5, b = mt_next(s) >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* A uniform int in [0, n), n >= 1, drawing as random._randbelow does. */
static uint32_t rand_below(MtState *s, uint32_t n) {
  int k = 0;
  uint32_t r, m = n;
  while (m) {
    k++;
    m >>= 1;
  }
  do {
    r = mt_next(s) >> (32 - k);
  } while (r >= n);
  return r;
}

static void shuffle(MtState *s, uint32_t *x, Py_ssize_t n) {
  Py_ssize_t i;
  for (i = n - 1; i > 0; i--) {
    uint32_t j = rand_below(s, (uint32_t)(i + 1)), t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}

/* ---- Growable buffers. ---- */

/* Grows the array *data (elements of `size` bytes, capacity *cap, starting
   at `first`, doubling) to hold at least n elements; new space is zeroed. */
static int grow(void **data, Py_ssize_t *cap, Py_ssize_t n, size_t size,
                Py_ssize_t first) {
  Py_ssize_t c = *cap ? *cap : first;
  char *p;
  if (n <= *cap) return 0;
  while (c < n) c *= 2;
  p = (char *)PyMem_Realloc(*data, c * size);
  if (!p) {
    PyErr_NoMemory();
    return -1;
  }
  memset(p + *cap * size, 0, (c - *cap) * size);
  *data = p;
  *cap = c;
  return 0;
}

typedef struct {
  uint32_t *v;
  Py_ssize_t n, cap;
} IntVec;

static int vec_reserve(IntVec *a, Py_ssize_t n) {
  return grow((void **)&a->v, &a->cap, n, sizeof(uint32_t), 64);
}

static int vec_extend(IntVec *a, const uint32_t *src, Py_ssize_t n) {
  if (vec_reserve(a, a->n + n) < 0) return -1;
  memcpy(a->v + a->n, src, n * sizeof(uint32_t));
  a->n += n;
  return 0;
}

static int vec_push(IntVec *a, uint32_t x) { return vec_extend(a, &x, 1); }

typedef struct {
  unsigned char *b;
  Py_ssize_t n, cap;
} ByteBuf;

static int buf_reserve(ByteBuf *a, Py_ssize_t extra) {
  return grow((void **)&a->b, &a->cap, a->n + extra, 1, 1024);
}

/* Callers reserve first; these never fail. */
static void put_byte(ByteBuf *a, unsigned char c) { a->b[a->n++] = c; }
static void put_fill(ByteBuf *a, unsigned char c, Py_ssize_t n) {
  memset(a->b + a->n, c, n);
  a->n += n;
}
static void put_varint(ByteBuf *a, uint64_t v) {
  while (v >= 0x80) {
    put_byte(a, (unsigned char)(v | 0x80));
    v >>= 7;
  }
  put_byte(a, (unsigned char)v);
}
static Py_ssize_t varint_size(uint64_t v) {
  Py_ssize_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

/* ---- The maker. ---- */

typedef struct {
  PyObject_HEAD
  MtState rng;
  /* Documents, flattened: document d has segments doc_start[d] ..
     doc_start[d + 1] - 1; segment s has tokens seg_start[s] .. */
  uint32_t *tokens, *vocab_ids;
  Py_ssize_t *seg_start, *doc_start, num_docs, num_vocab;
  unsigned char *is_subword;
  Py_ssize_t subword_size;
  int max_seq_length, max_predictions, mode;
  double short_seq_prob, masked_lm_prob;
  uint32_t cls_id, sep_id, mask_id;
  /* Scratch, reused across instances. */
  IntVec a, b, ids, out, cands, gstart, glen, order, positions;
  ByteBuf body, packed;
  long long instances, instance_tokens, masked_tokens;
} Maker;

static void Maker_dealloc(Maker *self) {
  IntVec *vecs[] = {&self->a, &self->b, &self->ids, &self->out, &self->cands,
                    &self->gstart, &self->glen, &self->order,
                    &self->positions};
  size_t i;
  for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) PyMem_Free(vecs[i]->v);
  PyMem_Free(self->body.b);
  PyMem_Free(self->packed.b);
  PyMem_Free(self->tokens);
  PyMem_Free(self->vocab_ids);
  PyMem_Free(self->seg_start);
  PyMem_Free(self->doc_start);
  PyMem_Free(self->is_subword);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int as_u32(PyObject *o, uint32_t *out, const char *what) {
  unsigned long v = PyLong_AsUnsignedLong(o);
  if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
  if (v >= 0x80000000ul) {
    PyErr_Format(PyExc_OverflowError, "%s %lu does not fit 31 bits", what, v);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}

/* documents: list of list of list of int. */
static int load_documents(Maker *self, PyObject *docs) {
  Py_ssize_t d, s, t, num_segs = 0, num_tokens = 0, si = 0, ti = 0;
  if (!PyList_Check(docs)) {
    PyErr_SetString(PyExc_TypeError, "documents must be a list");
    return -1;
  }
  self->num_docs = PyList_GET_SIZE(docs);
  for (d = 0; d < self->num_docs; d++) {
    PyObject *doc = PyList_GET_ITEM(docs, d);
    if (!PyList_Check(doc)) {
      PyErr_SetString(PyExc_TypeError, "a document must be a list");
      return -1;
    }
    num_segs += PyList_GET_SIZE(doc);
    for (s = 0; s < PyList_GET_SIZE(doc); s++) {
      PyObject *seg = PyList_GET_ITEM(doc, s);
      if (!PyList_Check(seg)) {
        PyErr_SetString(PyExc_TypeError, "a sentence must be a list");
        return -1;
      }
      num_tokens += PyList_GET_SIZE(seg);
    }
  }
  self->tokens = PyMem_Malloc((num_tokens + 1) * sizeof(uint32_t));
  self->seg_start = PyMem_Malloc((num_segs + 1) * sizeof(Py_ssize_t));
  self->doc_start = PyMem_Malloc((self->num_docs + 1) * sizeof(Py_ssize_t));
  if (!self->tokens || !self->seg_start || !self->doc_start) {
    PyErr_NoMemory();
    return -1;
  }
  for (d = 0; d < self->num_docs; d++) {
    PyObject *doc = PyList_GET_ITEM(docs, d);
    self->doc_start[d] = si;
    for (s = 0; s < PyList_GET_SIZE(doc); s++) {
      PyObject *seg = PyList_GET_ITEM(doc, s);
      self->seg_start[si++] = ti;
      for (t = 0; t < PyList_GET_SIZE(seg); t++)
        if (as_u32(PyList_GET_ITEM(seg, t), &self->tokens[ti++], "token id"))
          return -1;
    }
  }
  self->doc_start[self->num_docs] = si;
  self->seg_start[si] = ti;
  return 0;
}

static int Maker_init(Maker *self, PyObject *args, PyObject *kwds) {
  static char *kwlist[] = {"documents", "max_seq_length", "short_seq_prob",
                           "masked_lm_prob", "max_predictions_per_seq",
                           "cls_id", "sep_id", "mask_id", "vocab_ids",
                           "subword_ids", "mode", NULL};
  PyObject *docs, *vocab, *subwords, *seq = NULL, *it, *item;
  unsigned int cls_id, sep_id, mask_id;
  Py_ssize_t i;
  if (self->tokens) {
    PyErr_SetString(PyExc_RuntimeError, "Maker is already initialized");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(
          args, kwds, "OiddiIIIOOi", kwlist, &docs, &self->max_seq_length,
          &self->short_seq_prob, &self->masked_lm_prob,
          &self->max_predictions, &cls_id, &sep_id, &mask_id, &vocab,
          &subwords, &self->mode))
    return -1;
  if (self->max_seq_length < 5 || self->max_predictions < 0 ||
      self->mode < MODE_TOKENS || self->mode > MODE_WORD_LEVEL) {
    PyErr_SetString(PyExc_ValueError,
                    "max_seq_length >= 5, max_predictions_per_seq >= 0 and "
                    "mode 0-2 are required");
    return -1;
  }
  self->cls_id = cls_id;
  self->sep_id = sep_id;
  self->mask_id = mask_id;
  self->rng.index = MT_N + 1; /* No state until set_state. */
  if (load_documents(self, docs) < 0) return -1;
  if (self->num_docs < 1 || self->num_docs >= 0x80000000L) {
    PyErr_SetString(PyExc_ValueError, "1 to 2**31 - 1 documents are needed");
    return -1;
  }
  seq = PySequence_Fast(vocab, "vocab_ids must be a sequence");
  if (!seq) return -1;
  self->num_vocab = PySequence_Fast_GET_SIZE(seq);
  if (self->num_vocab < 1 || self->num_vocab >= 0x80000000L) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "vocab_ids: 1 to 2**31 - 1 ids");
    return -1;
  }
  self->vocab_ids = PyMem_Malloc(self->num_vocab * sizeof(uint32_t));
  if (!self->vocab_ids) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return -1;
  }
  for (i = 0; i < self->num_vocab; i++)
    if (as_u32(PySequence_Fast_GET_ITEM(seq, i), &self->vocab_ids[i],
               "vocabulary id")) {
      Py_DECREF(seq);
      return -1;
    }
  Py_DECREF(seq);
  /* subword ids -> a byte table indexed by id. */
  it = PyObject_GetIter(subwords);
  if (!it) return -1;
  while ((item = PyIter_Next(it))) {
    uint32_t id;
    int bad = as_u32(item, &id, "subword id");
    Py_DECREF(item);
    if (bad) break;
    if (grow((void **)&self->is_subword, &self->subword_size,
             (Py_ssize_t)id + 1, 1, 1024) < 0)
      break;
    self->is_subword[id] = 1;
  }
  Py_DECREF(it);
  return PyErr_Occurred() ? -1 : 0;
}

static int is_subword(const Maker *self, uint32_t id) {
  return (Py_ssize_t)id < self->subword_size && self->is_subword[id];
}

static int check_state(Maker *self) {
  if (self->rng.index > MT_N) {
    PyErr_SetString(PyExc_RuntimeError, "set_state() was never called");
    return -1;
  }
  return 0;
}

static PyObject *Maker_set_state(Maker *self, PyObject *state) {
  PyObject *seq = PySequence_Fast(state, "state must be a sequence");
  Py_ssize_t i;
  uint32_t words[MT_N + 1];
  if (!seq) return NULL;
  if (PySequence_Fast_GET_SIZE(seq) != MT_N + 1) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError,
                    "state: the 625 ints of random.Random.getstate()[1]");
    return NULL;
  }
  for (i = 0; i <= MT_N; i++) {
    unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == (unsigned long)-1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return NULL;
    }
    words[i] = (uint32_t)v;
    if (v > 0xfffffffful || (i == MT_N && v > MT_N)) {
      Py_DECREF(seq);
      PyErr_SetString(PyExc_ValueError, "state: a value out of range");
      return NULL;
    }
  }
  Py_DECREF(seq);
  memcpy(self->rng.mt, words, sizeof(self->rng.mt));
  self->rng.index = (int)words[MT_N];
  Py_RETURN_NONE;
}

static PyObject *Maker_get_state(Maker *self, PyObject *unused) {
  PyObject *t;
  int i;
  if (check_state(self) < 0) return NULL;
  t = PyTuple_New(MT_N + 1);
  if (!t) return NULL;
  for (i = 0; i <= MT_N; i++) {
    PyObject *v = PyLong_FromUnsignedLong(i < MT_N ? self->rng.mt[i]
                                                   : (unsigned long)self->rng.index);
    if (!v) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, v);
  }
  return t;
}

/* draws(kind, n, count): the generator's raw draws, for fast.py's check:
   kind 0: count x random(); 1: count x _randbelow(n); 2: shuffle(range(n)). */
static PyObject *Maker_draws(Maker *self, PyObject *args) {
  int kind;
  Py_ssize_t n, count, i;
  PyObject *list;
  if (!PyArg_ParseTuple(args, "inn", &kind, &n, &count)) return NULL;
  if (check_state(self) < 0) return NULL;
  if (n < 1 || n >= 0x80000000L || count < 0) {
    PyErr_SetString(PyExc_ValueError, "1 <= n < 2**31, count >= 0");
    return NULL;
  }
  if (kind == 2) {
    IntVec v = {0};
    if (vec_reserve(&v, n) < 0) return NULL;
    for (i = 0; i < n; i++) v.v[i] = (uint32_t)i;
    shuffle(&self->rng, v.v, n);
    list = PyList_New(n);
    for (i = 0; list && i < n; i++)
      PyList_SET_ITEM(list, i, PyLong_FromUnsignedLong(v.v[i]));
    PyMem_Free(v.v);
    return list;
  }
  list = PyList_New(count);
  for (i = 0; list && i < count; i++)
    PyList_SET_ITEM(list, i,
                    kind == 0 ? PyFloat_FromDouble(rand_double(&self->rng))
                              : PyLong_FromUnsignedLong(
                                    rand_below(&self->rng, (uint32_t)n)));
  return list;
}

static uint32_t rand_int(Maker *self, uint32_t lo, uint32_t hi) {
  return lo + rand_below(&self->rng, hi - lo + 1);
}

/* Sentences [first, last) of document d appended to v. */
static int append_segments(Maker *self, IntVec *v, Py_ssize_t d,
                           Py_ssize_t first, Py_ssize_t last) {
  Py_ssize_t s0 = self->doc_start[d];
  const Py_ssize_t *ss = self->seg_start;
  return vec_extend(v, self->tokens + ss[s0 + first],
                    ss[s0 + last] - ss[s0 + first]);
}

/* instances.truncate_seq_pair: drop from the longer (B on ties) list. */
static void truncate_pair(Maker *self, Py_ssize_t max_num_tokens,
                          Py_ssize_t *a0, Py_ssize_t *a1, Py_ssize_t *b0,
                          Py_ssize_t *b1) {
  while ((*a1 - *a0) + (*b1 - *b0) > max_num_tokens) {
    int front = rand_double(&self->rng) < 0.5;
    if (*a1 - *a0 > *b1 - *b0) {
      if (front) ++*a0; else --*a1;
    } else {
      if (front) ++*b0; else --*b1;
    }
  }
}

static int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return (a > b) - (a < b);
}

static uint32_t random_token(Maker *self) {
  return self->vocab_ids[rand_below(&self->rng, (uint32_t)self->num_vocab)];
}

/* The 80/10/10 draw for one position of a token-level mask. */
static void mask_token(Maker *self, uint32_t index) {
  if (rand_double(&self->rng) < 0.8)
    self->out.v[index] = self->mask_id;
  else if (rand_double(&self->rng) >= 0.5)
    self->out.v[index] = random_token(self);
}

/* masking.create_masked_lm_predictions on self->ids (len_a tokens in A):
   fills self->out and the sorted self->positions. */
static int mask_instance(Maker *self, Py_ssize_t len_a) {
  Py_ssize_t n = self->ids.n, i, g, count = 0;
  Py_ssize_t num_to_predict = (Py_ssize_t)rint(n * self->masked_lm_prob);
  int word_level = self->mode == MODE_WORD_LEVEL;
  if (num_to_predict < 1) num_to_predict = 1;
  if (num_to_predict > self->max_predictions)
    num_to_predict = self->max_predictions;
  self->out.n = self->positions.n = self->cands.n = 0;
  if (vec_reserve(&self->out, n) < 0 || vec_reserve(&self->cands, n) < 0 ||
      vec_reserve(&self->positions, n) < 0)
    return -1;
  for (i = 0; i < n; i++)
    self->out.v[i] = word_level ? self->ids.v[i] & (CONTINUATION - 1)
                                : self->ids.v[i];
  self->out.n = n;
  for (i = 1; i < n - 1; i++)
    if (i != len_a + 1) self->cands.v[self->cands.n++] = (uint32_t)i;

  if (self->mode == MODE_TOKENS) {
    shuffle(&self->rng, self->cands.v, self->cands.n);
    for (i = 0; i < self->cands.n && i < num_to_predict; i++) {
      mask_token(self, self->cands.v[i]);
      self->positions.v[self->positions.n++] = self->cands.v[i];
    }
  } else {
    /* Groups of consecutive candidates: group g is cands[gstart[g] ..]. */
    self->gstart.n = self->glen.n = self->order.n = 0;
    for (i = 0; i < self->cands.n; i++) {
      uint32_t index = self->cands.v[i], id = self->ids.v[index];
      int joins;
      if (word_level)
        joins = (id >= CONTINUATION ||
                 is_subword(self, id & (CONTINUATION - 1))) &&
                self->gstart.n &&
                self->cands.v[i - 1] == index - 1;
      else
        joins = self->gstart.n && is_subword(self, id);
      if (joins) {
        self->glen.v[self->glen.n - 1]++;
      } else if (vec_push(&self->gstart, (uint32_t)i) < 0 ||
                 vec_push(&self->glen, 1) < 0 ||
                 vec_push(&self->order, (uint32_t)self->order.n) < 0) {
        return -1;
      }
    }
    shuffle(&self->rng, self->order.v, self->order.n);
    for (g = 0; g < self->order.n; g++) {
      uint32_t k = self->order.v[g];
      const uint32_t *group = self->cands.v + self->gstart.v[k];
      Py_ssize_t len = self->glen.v[k];
      if (count >= num_to_predict) break;
      if (count + len > num_to_predict) continue;
      if (word_level) {
        if (rand_double(&self->rng) < 0.8) {
          for (i = 0; i < len; i++) self->out.v[group[i]] = self->mask_id;
        } else if (rand_double(&self->rng) >= 0.5) {
          for (i = 0; i < len; i++) self->out.v[group[i]] = random_token(self);
        }
      } else {
        for (i = 0; i < len; i++) mask_token(self, group[i]);
      }
      for (i = 0; i < len; i++)
        self->positions.v[self->positions.n++] = group[i];
      count += len;
    }
  }
  qsort(self->positions.v, self->positions.n, sizeof(uint32_t), cmp_u32);
  return 0;
}

/* One Features map entry: name -> int64_list (packed) or float_list. */
static int put_entry(ByteBuf *body, const char *name, const ByteBuf *packed,
                     int is_float) {
  Py_ssize_t name_len = (Py_ssize_t)strlen(name), p = packed->n;
  Py_ssize_t inner = p ? 1 + varint_size(p) + p : 0;
  Py_ssize_t feature = 1 + varint_size(inner) + inner;
  Py_ssize_t entry = 1 + varint_size(name_len) + name_len + 1 +
                     varint_size(feature) + feature;
  if (buf_reserve(body, 1 + varint_size(entry) + entry) < 0) return -1;
  put_byte(body, 0x0a);
  put_varint(body, entry);
  put_byte(body, 0x0a);
  put_varint(body, name_len);
  memcpy(body->b + body->n, name, name_len);
  body->n += name_len;
  put_byte(body, 0x12);
  put_varint(body, feature);
  put_byte(body, is_float ? 0x12 : 0x1a);
  put_varint(body, inner);
  if (p) {
    put_byte(body, 0x0a);
    put_varint(body, p);
    memcpy(body->b + body->n, packed->b, p);
    body->n += p;
  }
  return 0;
}

/* Packs ints as varints, zero-padded to `size` entries. */
static int pack_ints(ByteBuf *a, const uint32_t *v, Py_ssize_t n,
                     Py_ssize_t size) {
  Py_ssize_t i;
  a->n = 0;
  if (buf_reserve(a, 5 * n + size) < 0) return -1;
  for (i = 0; i < n; i++) put_varint(a, v[i]);
  put_fill(a, 0, size - n);
  return 0;
}

/* The serialized tf.train.Example of the instance in self->out (writer.py). */
static PyObject *encode_instance(Maker *self, Py_ssize_t len_a,
                                 int is_random_next) {
  Py_ssize_t n = self->out.n, k = self->positions.n, i;
  Py_ssize_t seq = self->max_seq_length, preds = self->max_predictions;
  ByteBuf *body = &self->body, *p = &self->packed;
  PyObject *record;
  static const unsigned char one_f32[4] = {0x00, 0x00, 0x80, 0x3f};
  IntVec *labels = &self->cands; /* Free by now: reused for the labels. */
  if (n > seq || k > preds) {
    PyErr_SetString(PyExc_ValueError, "instance does not fit the record");
    return NULL;
  }
  labels->n = 0;
  if (vec_reserve(labels, k) < 0) return NULL;
  for (i = 0; i < k; i++)
    labels->v[i] = self->mode == MODE_WORD_LEVEL
                       ? self->ids.v[self->positions.v[i]] & (CONTINUATION - 1)
                       : self->ids.v[self->positions.v[i]];
  body->n = 0;
  if (pack_ints(p, self->out.v, n, seq) < 0 ||
      put_entry(body, "input_ids", p, 0) < 0)
    return NULL;
  p->n = 0;
  if (buf_reserve(p, seq) < 0) return NULL;
  put_fill(p, 1, n);
  put_fill(p, 0, seq - n);
  if (put_entry(body, "input_mask", p, 0) < 0) return NULL;
  p->n = 0;
  put_fill(p, 0, len_a + 2);
  put_fill(p, 1, n - len_a - 2);
  put_fill(p, 0, seq - n);
  if (put_entry(body, "segment_ids", p, 0) < 0 ||
      pack_ints(p, self->positions.v, k, preds) < 0 ||
      put_entry(body, "masked_lm_positions", p, 0) < 0 ||
      pack_ints(p, labels->v, k, preds) < 0 ||
      put_entry(body, "masked_lm_ids", p, 0) < 0)
    return NULL;
  p->n = 0;
  if (buf_reserve(p, 4 * preds) < 0) return NULL;
  for (i = 0; i < k; i++) {
    memcpy(p->b + p->n, one_f32, 4);
    p->n += 4;
  }
  put_fill(p, 0, 4 * (preds - k));
  if (put_entry(body, "masked_lm_weights", p, 1) < 0) return NULL;
  p->n = 0;
  put_byte(p, is_random_next ? 1 : 0);
  if (put_entry(body, "next_sentence_labels", p, 0) < 0) return NULL;
  record = PyBytes_FromStringAndSize(NULL, 1 + varint_size(body->n) + body->n);
  if (record) {
    ByteBuf r = {(unsigned char *)PyBytes_AS_STRING(record), 0, 0};
    put_byte(&r, 0x0a);
    put_varint(&r, body->n);
    memcpy(r.b + r.n, body->b, body->n);
  }
  self->instances++;
  self->instance_tokens += n;
  self->masked_tokens += k;
  return record;
}

/* Builds [CLS] A [SEP] B [SEP] from the kept windows, masks, encodes. */
static int add_instance(Maker *self, PyObject *records, Py_ssize_t a0,
                        Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1,
                        int is_random_next) {
  PyObject *record;
  int rc;
  self->ids.n = 0;
  if (vec_push(&self->ids, self->cls_id) < 0 ||
      vec_extend(&self->ids, self->a.v + a0, a1 - a0) < 0 ||
      vec_push(&self->ids, self->sep_id) < 0 ||
      vec_extend(&self->ids, self->b.v + b0, b1 - b0) < 0 ||
      vec_push(&self->ids, self->sep_id) < 0 ||
      mask_instance(self, a1 - a0) < 0)
    return -1;
  record = encode_instance(self, a1 - a0, is_random_next);
  if (!record) return -1;
  rc = PyList_Append(records, record);
  Py_DECREF(record);
  return rc;
}

/* make(document_index): instances.create_instances_from_document, each
   instance masked and encoded; returns the list of records. */
static PyObject *Maker_make(Maker *self, PyObject *arg) {
  Py_ssize_t doc = PyLong_AsSsize_t(arg), num_sentences, i, chunk_start;
  Py_ssize_t max_num_tokens = self->max_seq_length - 3, target;
  Py_ssize_t chunk_length = 0;
  PyObject *records;
  if (doc == -1 && PyErr_Occurred()) return NULL;
  if (check_state(self) < 0) return NULL;
  if (doc < 0 || doc >= self->num_docs) {
    PyErr_SetString(PyExc_IndexError, "document index out of range");
    return NULL;
  }
  records = PyList_New(0);
  if (!records) return NULL;
  num_sentences = self->doc_start[doc + 1] - self->doc_start[doc];
  target = max_num_tokens;
  if (rand_double(&self->rng) < self->short_seq_prob)
    target = rand_int(self, 2, (uint32_t)max_num_tokens);
  chunk_start = 0;
  for (i = 0; i < num_sentences; i++) {
    Py_ssize_t s = self->doc_start[doc] + i, chunk_n, a_end = 1;
    int is_random_next;
    chunk_length += self->seg_start[s + 1] - self->seg_start[s];
    if (i != num_sentences - 1 && chunk_length < target) continue;
    chunk_n = i - chunk_start + 1;
    if (chunk_n >= 2) a_end = rand_int(self, 1, (uint32_t)(chunk_n - 1));
    self->a.n = self->b.n = 0;
    if (append_segments(self, &self->a, doc, chunk_start,
                        chunk_start + a_end) < 0)
      goto error;
    if (chunk_n == 1 || rand_double(&self->rng) < 0.5) {
      Py_ssize_t target_b = target - self->a.n, other = doc, start, j, len;
      int tries;
      is_random_next = 1;
      for (tries = 0; tries < 10; tries++) {
        other = rand_int(self, 0, (uint32_t)(self->num_docs - 1));
        if (other != doc) break;
      }
      len = self->doc_start[other + 1] - self->doc_start[other];
      if (len == 0) { /* As random.randint(0, -1) fails in Python. */
        PyErr_Format(PyExc_ValueError,
                     "random next sentence: document %zd is empty", other);
        goto error;
      }
      start = rand_int(self, 0, (uint32_t)(len - 1));
      for (j = start; j < len; j++) {
        if (append_segments(self, &self->b, other, j, j + 1) < 0) goto error;
        if (self->b.n >= target_b) break;
      }
      /* The chunk's unused sentences go back: the next chunk starts after
         segment A. */
      i = chunk_start + a_end - 1;
    } else {
      is_random_next = 0;
      if (append_segments(self, &self->b, doc, chunk_start + a_end,
                          chunk_start + chunk_n) < 0)
        goto error;
    }
    {
      Py_ssize_t a0 = 0, a1 = self->a.n, b0 = 0, b1 = self->b.n;
      truncate_pair(self, max_num_tokens, &a0, &a1, &b0, &b1);
      if (add_instance(self, records, a0, a1, b0, b1, is_random_next) < 0)
        goto error;
    }
    chunk_start = i + 1;
    chunk_length = 0;
  }
  return records;
error:
  Py_DECREF(records);
  return NULL;
}

static PyObject *Maker_counts(Maker *self, PyObject *unused) {
  return Py_BuildValue("(LLL)", self->instances, self->instance_tokens,
                       self->masked_tokens);
}

/* ---- TFRecord framing (what tf.io.TFRecordWriter writes). ---- */

static uint32_t crc32c_table[256];

static void crc32c_init(void) {
  uint32_t i, j, c;
  for (i = 0; i < 256; i++) {
    c = i;
    for (j = 0; j < 8; j++) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    crc32c_table[i] = c;
  }
}

static uint32_t masked_crc32c(const unsigned char *p, Py_ssize_t n) {
  uint32_t c = 0xffffffffu;
  Py_ssize_t i;
  for (i = 0; i < n; i++) c = crc32c_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  c ^= 0xffffffffu;
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

static void put_u32le(unsigned char *p, uint32_t v) {
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

/* frame_records(list of bytes) -> bytes: each record as a TFRecord:
   uint64 length, masked CRC-32C of the length, data, masked CRC-32C of the
   data (little-endian). */
static PyObject *frame_records(PyObject *module, PyObject *records) {
  Py_ssize_t i, n, total = 0;
  PyObject *out;
  unsigned char *p;
  if (!PyList_Check(records)) {
    PyErr_SetString(PyExc_TypeError, "records must be a list of bytes");
    return NULL;
  }
  n = PyList_GET_SIZE(records);
  for (i = 0; i < n; i++) {
    PyObject *r = PyList_GET_ITEM(records, i);
    if (!PyBytes_Check(r)) {
      PyErr_SetString(PyExc_TypeError, "records must be a list of bytes");
      return NULL;
    }
    total += PyBytes_GET_SIZE(r) + 16;
  }
  out = PyBytes_FromStringAndSize(NULL, total);
  if (!out) return NULL;
  p = (unsigned char *)PyBytes_AS_STRING(out);
  for (i = 0; i < n; i++) {
    PyObject *r = PyList_GET_ITEM(records, i);
    uint64_t len = (uint64_t)PyBytes_GET_SIZE(r);
    int k;
    for (k = 0; k < 8; k++) p[k] = (unsigned char)(len >> (8 * k));
    put_u32le(p + 8, masked_crc32c(p, 8));
    memcpy(p + 12, PyBytes_AS_STRING(r), len);
    put_u32le(p + 12 + len, masked_crc32c(p + 12, (Py_ssize_t)len));
    p += 16 + len;
  }
  return out;
}

static PyMethodDef module_methods[] = {
    {"frame_records", (PyCFunction)frame_records, METH_O,
     "frame_records(list of bytes) -> the bytes of those TFRecords."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef Maker_methods[] = {
    {"set_state", (PyCFunction)Maker_set_state, METH_O,
     "set_state(random.Random().getstate()[1]): continue that generator."},
    {"get_state", (PyCFunction)Maker_get_state, METH_NOARGS,
     "The generator's state, for random.Random.setstate((3, state, g))."},
    {"make", (PyCFunction)Maker_make, METH_O,
     "make(document_index) -> list of serialized tf.train.Example bytes."},
    {"counts", (PyCFunction)Maker_counts, METH_NOARGS,
     "(instances, instance_tokens, masked_tokens) made so far."},
    {"draws", (PyCFunction)Maker_draws, METH_VARARGS,
     "draws(kind, n, count): raw generator draws (fast.py's self-check)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_fast.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_dealloc = (destructor)Maker_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Makes the serialized instances of flattened documents.",
    .tp_methods = Maker_methods,
    .tp_init = (initproc)Maker_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT, "_fast",
    "Compiled instance making for create_pretraining_data (see fast.py).", -1,
    module_methods};

PyMODINIT_FUNC PyInit__fast(void) {
  PyObject *m;
  crc32c_init();
  if (PyType_Ready(&MakerType) < 0) return NULL;
  m = PyModule_Create(&fast_module);
  if (!m) return NULL;
  Py_INCREF(&MakerType);
  if (PyModule_AddObject(m, "Maker", (PyObject *)&MakerType) < 0 ||
      PyModule_AddIntConstant(m, "ABI_VERSION", ABI_VERSION) < 0) {
    Py_DECREF(&MakerType);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
