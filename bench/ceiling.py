"""The matmul ceiling: how fast this machine multiplies the model's shapes.

A training step of BERT is mostly the encoder's dense matmuls. This module
times a chain of exactly those matmuls (per layer: Q, K, V and attention
output [T, H] x [H, H], then [T, H] x [H, I] and [T, I] x [I, H], with
T = batch * seq tokens) with nothing else in between, so the GFLOP/s it
reaches is what the model's own step could reach at best on this CPU through
the same library. `bench_model` runs it in the same run as the peers and
prints each peer's GFLOP/s as a share of it.

Rows: TensorFlow (oneDNN) float32 and bfloat16, each with and without XLA,
and PyTorch float32/bfloat16 when torch is installed. `--training` adds the
training ceiling: TensorFlow's rows for the matmuls of a training step
(`training_rows`: the forward chain, then back through it each layer's
input gradient dy W^T and weight gradient x^T dy, 3x the FLOPs), the
yardstick of the training and fine-tuning steps.

    python -m bench.ceiling --config minilm --seq_length 128 --batch_size 16

Prints one `CEILING {json}` line per row (and a table); `--json` only the
lines. The peers' FLOP count is `bench.shapes` (the same shapes).
"""

import argparse
import json
import os
import statistics
import sys

if __package__ in (None, ""):
  sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
      __file__))))
from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing  # pylint: disable=g-import-not-at-top


def chain_shapes(shape, tokens):
  """The (m, k, n) of every matmul in one pass of the encoder's dense layers.

  Args:
    shape: a `bench.shapes.SHAPES` entry.
    tokens: int, batch_size * seq_length.

  Returns:
    list of (m, k, n): num_hidden_layers * [4 x (T, H, H), (T, H, I),
    (T, I, H)]; each product's output is the next one's input.

    >>> chain_shapes(shapes.SHAPES["minilm"], 8)[:5]
    [(8, 384, 384), (8, 384, 384), (8, 384, 384), (8, 384, 384), (8, 384, 1536)]
  """
  h, i = shape["hidden_size"], shape["intermediate_size"]
  layer = [(tokens, h, h)] * 4 + [(tokens, h, i), (tokens, i, h)]
  return layer * shape["num_hidden_layers"]


def chain_flops(chain):
  """2 * m * k * n summed over the chain."""
  return sum(2 * m * k * n for m, k, n in chain)


def _time(fn, warmup, repeats, number):
  """(median seconds of `number` calls of fn(), the per-repeat seconds)."""
  times = timing.measure(fn, warmup, number, repeats)
  return statistics.median(times), times


def _forward_chain(x, weights):
  """A true chain, as the layers of the model: each product feeds the
  next, so nothing can be skipped or reordered."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  for w in weights:
    x = tf.matmul(x, w)
  return tf.reduce_sum(tf.cast(x, tf.float32))


def training_chain(x, weights):
  """The forward chain, then back through it in reverse order: dx = dy W^T
  (feeding the next one back) and dW = x^T dy, the two products of a dense
  layer's gradient; 3x chain_flops."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  inputs = []
  for w in weights:
    inputs.append(x)
    x = tf.matmul(x, w)
  dy, total = x, tf.zeros([], tf.float32)
  for x_in, w in zip(reversed(inputs), reversed(weights)):
    # Each weight gradient is reduced so that none can be skipped.
    dw = tf.matmul(x_in, dy, transpose_a=True)
    total += tf.reduce_sum(tf.cast(dw[:1], tf.float32))
    dy = tf.matmul(dy, w, transpose_b=True)
  return total + tf.reduce_sum(tf.cast(dy, tf.float32))


def chain_operands(chain, dtype, seed=0):
  """(x0, weights): constant Tensors of `dtype` for `chain`, the weights
  scaled by 1/sqrt(k) so the chain's values stay of order one."""
  import numpy as np  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  rng = np.random.RandomState(seed)
  weights = [tf.constant(rng.randn(k, n).astype(np.float32) / np.sqrt(k),
                         dtype=dtype) for _, k, n in chain]
  m, k, _ = chain[0]
  x0 = tf.constant(rng.randn(m, k).astype(np.float32), dtype=dtype)
  return x0, weights


def _tensorflow_rows(body, chain, dtypes, warmup, repeats, number):
  """Rows (library, dtype, xla, seconds, all times) of body(x, weights)
  timed as a tf.function with and without XLA, per dtype."""
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  rows = []
  for dtype in dtypes:
    x0, weights = chain_operands(chain, dtype)
    for xla in (False, True):
      run = tf.function(lambda x=x0, weights=weights: body(x, weights),
                        jit_compile=xla)
      sec, times = _time(lambda: run().numpy(), warmup, repeats, number)
      rows.append(("tensorflow", dtype, xla, sec, times))
  return rows


def tensorflow_rows(chain, dtypes, warmup, repeats, number):
  """TensorFlow rows of the forward chain: (library, dtype, xla, seconds,
  all times)."""
  return _tensorflow_rows(_forward_chain, chain, dtypes, warmup, repeats,
                          number)


def training_rows(chain, dtypes, warmup, repeats, number):
  """TensorFlow rows of the training step's matmuls (`training_chain`):
  (library, dtype, xla, seconds, all times)."""
  return _tensorflow_rows(training_chain, chain, dtypes, warmup, repeats,
                          number)


def torch_rows(chain, dtypes, warmup, repeats, number):
  """PyTorch rows, or [] when torch is not installed."""
  try:
    import torch  # pylint: disable=g-import-not-at-top
  except ImportError:
    return []
  rows = []
  gen = torch.Generator().manual_seed(0)
  for dtype in dtypes:
    t_dtype = getattr(torch, dtype)
    weights = [(torch.randn(k, n, generator=gen) / k ** 0.5).to(t_dtype)
               for _, k, n in chain]
    x0 = torch.randn(chain[0][0], chain[0][1], generator=gen).to(t_dtype)

    def run(x=x0, weights=weights):
      with torch.no_grad():
        for w in weights:
          x = torch.matmul(x, w)
        return float(x.float().sum())

    sec, times = _time(run, warmup, repeats, number)
    rows.append(("torch", dtype, False, sec, times))
  return rows


def measure(config="minilm", seq_length=128, batch_size=16,
            dtypes=("float32", "bfloat16"), libraries=("tensorflow", "torch"),
            warmup=2, repeats=5, number=3, training=False):
  """Every ceiling row as a dict with gflops_per_s and "pass" ("forward",
  or "training" for `training_rows`); see the module doc."""
  chain = chain_shapes(shapes.SHAPES[config], batch_size * seq_length)
  flops = chain_flops(chain)
  rows = []
  if "tensorflow" in libraries:
    rows += [r + ("forward",) for r in
             tensorflow_rows(chain, dtypes, warmup, repeats, number)]
  if "torch" in libraries:
    rows += [r + ("forward",) for r in
             torch_rows(chain, dtypes, warmup, repeats, number)]
  if training:
    rows += [r + ("training",) for r in
             training_rows(chain, dtypes, warmup, repeats, number)]
  return [{"library": lib, "dtype": dtype, "xla": xla, "pass": kind,
           "config": config, "seq_length": seq_length,
           "batch_size": batch_size, "sec_median": sec, "sec_all": times,
           "gflops_per_s": (3 if kind == "training" else 1) * flops / sec
                           / 1e9}
          for lib, dtype, xla, sec, times, kind in rows]


def format_rows(rows):
  lines = ["| library | pass | dtype | XLA | GFLOP/s |",
           "|---|---|---|---|---|"]
  for r in rows:
    lines.append("| %s | %s | %s | %s | %.0f |" % (
        r["library"], r.get("pass", "forward"), r["dtype"],
        "on" if r["xla"] else "off", r["gflops_per_s"]))
  return "\n".join(lines)


def best(rows, dtype="float32", kind="forward"):
  """The highest GFLOP/s among TensorFlow rows of `dtype` and pass `kind`
  (None if none)."""
  values = [r["gflops_per_s"] for r in rows
            if r["dtype"] == dtype and r["library"] == "tensorflow"
            and r.get("pass", "forward") == kind]
  return max(values) if values else None


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--config", default="minilm", choices=sorted(shapes.SHAPES))
  p.add_argument("--seq_length", type=int, default=128)
  p.add_argument("--batch_size", type=int, default=16)
  p.add_argument("--dtypes", default="float32,bfloat16")
  p.add_argument("--libraries", default="tensorflow,torch")
  p.add_argument("--repeats", type=int, default=5)
  p.add_argument("--json", action="store_true")
  p.add_argument("--training", action="store_true",
                 help="also the training step's matmuls (training_rows)")
  args = p.parse_args()
  rows = measure(args.config, args.seq_length, args.batch_size,
                 tuple(args.dtypes.split(",")),
                 tuple(args.libraries.split(",")), repeats=args.repeats,
                 training=args.training)
  for r in rows:
    print("CEILING " + json.dumps(r), flush=True)
  if not args.json:
    print(format_rows(rows))


if __name__ == "__main__":
  main()
