"""GPU pretraining benchmark: sequences/s and model-FLOPs utilisation (MFU).

Runs BERT-Base and BERT-Large pretraining steps (MLM + NSP + optimizer) in
the two phases of the BERT recipe, in bfloat16, for each requested peer on
one GPU, and prints a Markdown table with sequences/s, achieved TFLOP/s and
MFU = achieved model FLOP/s / the GPU's peak (H100 SXM bf16 dense: 989
TFLOP/s; A100: 312). Model FLOPs count the matmuls of the forward pass
times 3 (bench/shapes.py), not recomputation.

  phase 1: seq 128, 20 masked positions, batch --phase1_batch (64)
  phase 2: seq 512, 80 masked positions, batch --phase2_batch (16)

    python -m bench.bench_gpu                       # ours, base+large
    python -m bench.bench_gpu --peers ours,hf --peak_tflops 312   # A100
    python -m bench.bench_gpu --peers hf --configs base --phases 1

Needs TensorFlow with CUDA for `ours`, PyTorch + transformers for `hf`.
Target (issue 8): BERT-Base phase 1 at >= 50% MFU on one H100.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import bench_model  # pylint: disable=g-import-not-at-top

PHASES = {1: dict(seq_length=128, num_masked=20),
          2: dict(seq_length=512, num_masked=80)}


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--peers", default="ours")
  p.add_argument("--configs", default="base,large")
  p.add_argument("--phases", default="1,2")
  p.add_argument("--modes", default="train")
  p.add_argument("--precision", default="bfloat16")
  p.add_argument("--phase1_batch", type=int, default=64)
  p.add_argument("--phase2_batch", type=int, default=16)
  p.add_argument("--warmup", type=int, default=5)
  p.add_argument("--steps", type=int, default=20)
  p.add_argument("--repeats", type=int, default=3)
  p.add_argument("--timeout", type=int, default=1800)
  p.add_argument("--peak_tflops", type=float, default=989.0)
  p.add_argument("--output_json", default=os.path.join(
      bench_model.ROOT, "bench", "results", "gpu_%d.json" % int(time.time())))
  args = p.parse_args()
  args.device = "gpu"
  args.batch_size, args.num_masked = None, None

  rows = []
  for mode in args.modes.split(","):
    for config in args.configs.split(","):
      for phase in [int(x) for x in args.phases.split(",")]:
        spec = PHASES[phase]
        batch = args.phase1_batch if phase == 1 else args.phase2_batch
        results = {}
        for peer in args.peers.split(","):
          print("running %s %s %s phase %d ..." % (peer, mode, config, phase),
                file=sys.stderr, flush=True)
          results[peer] = bench_model.run_peer(
              peer, mode, config, spec["seq_length"], args.precision, args,
              batch_size=batch, num_masked=spec["num_masked"])
        rows.append(((mode, config, spec["seq_length"], args.precision),
                     results))
        print(bench_model.format_table([rows[-1]], args.peak_tflops),
              flush=True)
  print("\n" + bench_model.format_table(rows, args.peak_tflops))
  bench_model.write_json(args.output_json, rows)


if __name__ == "__main__":
  main()
