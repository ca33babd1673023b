"""Is bfloat16 faster than float32 on this CPU? Measured once, cached.

No rule on CPU flags predicts it (docs/performance.md: AVX512-BF16 helps
on one CPU and hurts on another), so `bfloat16_speedup` times one matmul
of a BERT layer's feed-forward shape in both dtypes, interleaved (a drift
of the host's speed hits both alike), and caches the ratio under
`machine_key` (everything that changes the answer) in
`$XDG_CACHE_HOME/bert_tf2/matmul_probe.json` (default `~/.cache`).
`warn_if_bfloat16_slower(precision)` logs one warning line when bfloat16 is
slower; the run goes on as asked.
"""

import json
import os
import statistics
import time

from absl import logging

from bert_tf2.common import atomic_write_text

# A BERT-Base feed-forward matmul on 512 tokens: [512, 768] x [768, 3072].
PROBE_SHAPE = (512, 768, 3072)
PROBE_ROUNDS = 5
# Environment variables that change TensorFlow's CPU kernels or threads.
PROBE_ENVIRONMENT = ("TF_ENABLE_ONEDNN_OPTS", "OMP_NUM_THREADS",
                     "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS",
                     "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")
_warned = []


def cpu_model_and_flags(cpuinfo="/proc/cpuinfo"):
  """(model name, sorted tuple of flags) of the first CPU in `cpuinfo`
  (("unknown", ()) where it cannot be read, e.g. not Linux)."""
  model, flags = "unknown", ()
  try:
    with open(cpuinfo) as f:
      for line in f:
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model == "unknown":
          model = value.strip()
        elif key.strip() == "flags" and not flags:
          flags = tuple(sorted(value.split()))
  except OSError:
    pass
  return model, flags


def machine_key(cpuinfo="/proc/cpuinfo", environ=None):
  """A string naming what changes the probe's answer: CPU model and flags,
  usable cores, TensorFlow version and threads, `PROBE_ENVIRONMENT`."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  environ = os.environ if environ is None else environ
  model, flags = cpu_model_and_flags(cpuinfo)
  try:
    cores = len(os.sched_getaffinity(0))
  except AttributeError:  # Not Linux.
    cores = os.cpu_count()
  threads = (tf.config.threading.get_intra_op_parallelism_threads(),
             tf.config.threading.get_inter_op_parallelism_threads())
  env = " ".join("%s=%s" % (k, environ[k]) for k in PROBE_ENVIRONMENT
                 if k in environ)
  return "%s|%s|tf %s|cores %s|threads %d/%d|%s" % (
      model, " ".join(flags), tf.__version__, cores, threads[0], threads[1],
      env)


def cache_path():
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
      os.path.expanduser("~"), ".cache")
  return os.path.join(base, "bert_tf2", "matmul_probe.json")


def measure_gflops(dtype, shape=PROBE_SHAPE, warmup=3, repeats=7):
  """Median GFLOP/s of one [m, k] x [k, n] matmul in `dtype` (TF, CPU)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  m, k, n = shape
  with tf.device("/CPU:0"):
    a = tf.cast(tf.random.stateless_normal((m, k), seed=(1, 2)), dtype)
    b = tf.cast(tf.random.stateless_normal((k, n), seed=(3, 4)), dtype)
    fn = tf.function(lambda a, b: tf.reduce_sum(tf.cast(tf.matmul(a, b),
                                                        tf.float32)),
                     autograph=False)
    for _ in range(warmup):
      fn(a, b).numpy()
    times = []
    for _ in range(repeats):
      start = time.perf_counter()
      fn(a, b).numpy()
      times.append(time.perf_counter() - start)
  return 2.0 * m * k * n / statistics.median(times) / 1e9


def _read_cache(path):
  try:
    with open(path, encoding="utf-8") as f:
      value = json.load(f)
    return value if isinstance(value, dict) else {}
  except (OSError, ValueError):
    return {}  # absent, unreadable or damaged: measure again.


def _write_cache(path, cache):
  try:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write_text(path, json.dumps(cache, indent=1))
  except OSError:
    pass  # a read-only home: the probe is simply repeated next time.


def interleaved_rates(measure, rounds=PROBE_ROUNDS):
  """{"float32", "bfloat16": median GFLOP/s, "ratio": median of the rounds'
  bfloat16 / float32}, measured float32, bfloat16, float32, ...

    >>> rates = iter([100.0, 150.0, 200.0, 220.0, 100.0, 160.0])
    >>> got = interleaved_rates(lambda dtype: next(rates), rounds=3)
    >>> got["float32"], got["bfloat16"], got["ratio"]
    (100.0, 160.0, 1.5)
  """
  pairs = [(measure("float32"), measure("bfloat16")) for _ in range(rounds)]
  return {"float32": statistics.median(f for f, _ in pairs),
          "bfloat16": statistics.median(b for _, b in pairs),
          "ratio": statistics.median(b / f for f, b in pairs)}


def bfloat16_speedup(measure=measure_gflops, path=None, key=None):
  """`interleaved_rates(measure)` on this machine, cached under `key`
  (default `machine_key()`) in `path` (default `cache_path()`)."""
  path = path or cache_path()
  key = key or machine_key()
  cache = _read_cache(path)
  entry = cache.get(key)
  if (isinstance(entry, dict) and
      all(isinstance(entry.get(k), (int, float)) and
          not isinstance(entry.get(k), bool) and entry[k] > 0
          for k in ("float32", "bfloat16", "ratio"))):
    return entry
  entry = interleaved_rates(measure)
  cache[key] = entry
  _write_cache(path, cache)
  return entry


def on_cpu_only():
  """Whether TensorFlow sees no GPU or TPU (the probe is about the CPU)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  return not (tf.config.list_logical_devices("GPU") or
              tf.config.list_logical_devices("TPU"))


def warn_if_bfloat16_slower(precision, speedup=bfloat16_speedup,
                            cpu_only=on_cpu_only):
  """One warning line when --precision=bfloat16 is slower here (once).

  Returns the warning text, or None (other precisions, an accelerator, or
  bfloat16 at least as fast as float32).
  """
  if precision != "bfloat16" or _warned or not cpu_only():
    return None
  s = speedup()
  if s["ratio"] >= 1.0:
    return None
  _warned.append(True)
  text = ("--precision=bfloat16: on this CPU bfloat16 matmuls run at %.0f "
          "GFLOP/s against %.0f for float32 (%.2fx): float32 is likely "
          "faster here; going on in bfloat16 as asked (measured once, "
          "cached in %s)" % (s["bfloat16"], s["float32"], s["ratio"],
                             cache_path()))
  logging.warning(text)
  return text
