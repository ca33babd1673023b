"""Trains the toy task in a subprocess (signals, kills, multi-device tests).

    python -m tests.runner.train_main --output_dir=DIR --max_steps=N \
        [--strategy=default|mirrored|multi_worker] [--logical_cpus=2] \
        [--iterations_per_loop=K] [--save_checkpoints_steps=S] \
        [--train_batch_size=B] [--slow_ms=MS] [--result=OUT.npz]

Writes OUT.npz with the final checkpoint's tensors (keys with "/" as "|"),
plus "eval:<metric>" and "predict:ids" when --eval is given.
"""

import argparse
import sys
import time


def parse(argv):
  p = argparse.ArgumentParser()
  p.add_argument("--output_dir", required=True)
  p.add_argument("--max_steps", type=int, required=True)
  p.add_argument("--strategy", default="default")
  p.add_argument("--logical_cpus", type=int, default=0)
  p.add_argument("--iterations_per_loop", type=int, default=10)
  p.add_argument("--save_checkpoints_steps", type=int, default=10)
  p.add_argument("--train_batch_size", type=int, default=8)
  p.add_argument("--eval_batch_size", type=int, default=8)
  p.add_argument("--slow_ms", type=float, default=0.0)
  p.add_argument("--precision", default="float32")
  p.add_argument("--result", default="")
  p.add_argument("--eval", action="store_true")
  return p.parse_args(argv)


def main(argv):
  args = parse(argv)
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  if args.logical_cpus:
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * args.logical_cpus)
  from absl import logging  # pylint: disable=g-import-not-at-top
  import numpy as np  # pylint: disable=g-import-not-at-top
  from bert_tf2 import runner  # pylint: disable=g-import-not-at-top
  from tests.runner import toy  # pylint: disable=g-import-not-at-top
  logging.set_verbosity(logging.INFO)
  strategy = runner.strategy_from_flags(strategy=args.strategy)
  config = runner.RunConfig(
      args.output_dir, save_checkpoints_steps=args.save_checkpoints_steps,
      iterations_per_loop=args.iterations_per_loop, strategy=strategy,
      precision=args.precision, skip_consumed_batches=True,
      log_step_count_steps=1)
  est = runner.Estimator(
      toy.ToyTask(), config,
      optimizer_fn=toy.optimizer_fn,
      train_batch_size=args.train_batch_size,
      eval_batch_size=args.eval_batch_size,
      predict_batch_size=args.eval_batch_size)
  input_fn = toy.make_input_fn()
  if args.slow_ms:
    def slow_input_fn(params):
      produced = [0]

      def pause(x):
        time.sleep(args.slow_ms / 1000.0)
        produced[0] += 1
        sys.stderr.write("SLOW_BATCH %d\n" % produced[0])
        sys.stderr.flush()
        return x
      return input_fn(params).map(lambda f: dict(f, x=tf.ensure_shape(
          tf.py_function(pause, [f["x"]], tf.float32), f["x"].shape)))
    train_input_fn = slow_input_fn
  else:
    train_input_fn = input_fn
  sys.stderr.write("TRAINING_STARTS\n")
  sys.stderr.flush()
  est.train(train_input_fn, args.max_steps)
  out = {}
  if args.eval:  # On every worker: evaluation and prediction are collective.
    results = est.evaluate(toy.make_input_fn(50, repeat=False,
                                             drop_remainder=False))
    out.update({"eval:" + k: v for k, v in results.items()})
    rows = list(est.predict(toy.make_input_fn(
        21, repeat=False, drop_remainder=False)))
    out["predict:ids"] = np.array([r["id"] for r in rows])
    out["predict:probabilities"] = np.stack(
        [r["probabilities"] for r in rows])
  if args.result:
    out.update({k.replace("/", "|"): v for k, v in toy.checkpoint_arrays(
        est.latest_checkpoint()).items()})
    np.savez(args.result, **out)

if __name__ == "__main__":
  main(sys.argv[1:])
