"""Timing protocol shared by all peers: warm-up excluded, median of repeats.

Each peer module exposes `build(args) -> step_fn` where `step_fn()` runs one
step to completion (its outputs fetched to the host or synchronised), and
calls `report(args, step_fn)`, which prints one `RESULT {json}` line.
"""

import argparse
import json
import os
import statistics
import time


def peer_arg_parser(description):
  p = argparse.ArgumentParser(description=description)
  p.add_argument("--mode", choices=["train", "infer", "finetune"],
                 default="train")
  p.add_argument("--config", default="minilm")
  p.add_argument("--seq_length", type=int, default=128)
  p.add_argument("--batch_size", type=int, default=16)
  p.add_argument("--num_masked", type=int, default=20)
  p.add_argument("--precision", choices=["float32", "bfloat16", "int8"],
                 default="float32",
                 help="int8: inference only (each peer's int8 path).")
  p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
  p.add_argument("--warmup", type=int, default=3)
  p.add_argument("--steps", type=int, default=5)
  p.add_argument("--repeats", type=int, default=5)
  p.add_argument("--jit_compile", type=int, default=-1,
                 help="-1: the peer's best/default; 0 or 1 to force.")
  return p


def skip_int8_training(args):
  """Prints RESULT_SKIP and returns True for int8 outside inference."""
  if args.precision == "int8" and args.mode != "infer":
    print("RESULT_SKIP int8 is measured for inference only", flush=True)
    return True
  return False


def measure(step_fn, warmup, steps, repeats):
  """Returns the list of seconds per step, one entry per repeat."""
  for _ in range(warmup):
    step_fn()
  times = []
  for _ in range(repeats):
    start = time.perf_counter()
    for _ in range(steps):
      step_fn()
    times.append((time.perf_counter() - start) / steps)
  return times


def report(peer, args, step_fn, note="", steps_per_call=1):
  """Times `step_fn` and prints the RESULT line.

  `steps_per_call`: training steps one `step_fn()` runs (e.g. a runner loop
  of iterations_per_loop steps in one tf.function call); times are per step.
  """
  from bench import shapes  # pylint: disable=g-import-not-at-top
  # Same number of training steps as a one-step-per-call peer.
  calls = max(1, int(round(args.steps / float(steps_per_call))))
  warmup = max(1, -(-args.warmup // steps_per_call))
  times = measure(step_fn, warmup, calls, args.repeats)
  times = [t / steps_per_call for t in times]
  sec = statistics.median(times)
  flops = shapes.flops_per_sequence(shapes.SHAPES[args.config],
                                    args.seq_length, args.num_masked,
                                    args.mode)
  seq_per_s = args.batch_size / sec
  result = {
      "peer": peer, "mode": args.mode, "config": args.config,
      "seq_length": args.seq_length, "batch_size": args.batch_size,
      "precision": args.precision, "device": args.device,
      "sec_per_step_median": sec, "sec_per_step_all": times,
      "seq_per_s": seq_per_s, "gflops_per_s": seq_per_s * flops / 1e9,
      "note": note, "steps_per_call": steps_per_call,
      "load_average": os.getloadavg()[0],
  }
  print("RESULT " + json.dumps(result), flush=True)
  return result
