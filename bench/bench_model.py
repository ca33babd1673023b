"""Side-by-side model benchmarks: this project vs the original, keras-hub, HF.

Each peer runs in its own subprocess (they need incompatible TensorFlow
modes) on the same shape, batch and synthetic data; warm-up is excluded and
the median of several repeats is reported. Prints a Markdown table with
sequences/s, achieved GFLOP/s and the ratio of `ours` to each peer, and
writes the raw results as JSON.

    python -m bench.bench_model --modes train,infer,finetune \
        --configs minilm --seq_lengths 128 --batch_size 16
    python -m bench.bench_model --device gpu --peers ours \
        --configs base,large --seq_lengths 128,512 --precisions bfloat16
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = {
    "ours": "bench.peer_ours",
    "original": "bench.peer_original",
    "keras_hub": "bench.peer_keras_hub",
    "hf": "bench.peer_hf",
}


def run_peer(peer, mode, config, seq_length, precision, args,
             batch_size=None, num_masked=None, extra=()):
  """Runs one peer in a subprocess; returns its best RESULT dict or None."""
  cmd = [sys.executable, "-m", PEERS[peer], "--mode", mode, "--config", config,
         "--seq_length", str(seq_length), "--batch_size",
         str(batch_size or args.batch_size), "--num_masked",
         str(num_masked or args.num_masked),
         "--precision", precision, "--device", args.device,
         "--warmup", str(args.warmup), "--steps", str(args.steps),
         "--repeats", str(args.repeats)] + list(extra)
  if peer == "original":
    # The reference code needs the legacy Keras 2 (tf-keras) in its process.
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
  else:
    env = dict(os.environ)
  env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                        text=True, timeout=args.timeout, check=False)
  results = [json.loads(line[len("RESULT "):])
             for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
  if proc.returncode != 0 or not results:
    skipped = [l for l in proc.stdout.splitlines()
               if l.startswith("RESULT_SKIP")]
    reason = skipped[0][12:] if skipped else proc.stderr.strip()[-300:]
    print("  %s: no result (%s)" % (peer, reason.replace("\n", " ")),
          file=sys.stderr)
    return None
  return max(results, key=lambda r: r["seq_per_s"])


def format_table(rows, peak_tflops=None):
  """Markdown table; with `peak_tflops`, a model-FLOPs-utilisation column."""
  mfu_head, mfu_rule = (" MFU |", "---|") if peak_tflops else ("", "")
  lines = ["| mode | config | seq | precision | peer | seq/s | GFLOP/s |%s "
           "ours vs peer |" % mfu_head,
           "|---|---|---|---|---|---|---|%s---|" % mfu_rule]
  for (mode, config, seq, precision), results in rows:
    ours = results.get("ours")
    for peer, r in results.items():
      if r is None:
        continue
      ratio = ("%.2fx" % (ours["seq_per_s"] / r["seq_per_s"])
               if ours and peer != "ours" else "")
      name = r["peer"] + (" (%s)" % r["note"] if r.get("note") else "")
      mfu = (" %.1f%% |" % (100.0 * r["gflops_per_s"] / (peak_tflops * 1e3))
             if peak_tflops else "")
      lines.append("| %s | %s | %d | %s | %s | %.1f | %.0f |%s %s |" % (
          mode, config, seq, precision, name, r["seq_per_s"],
          r["gflops_per_s"], mfu, ratio))
  return "\n".join(lines)


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--peers", default="ours,original,keras_hub,hf")
  p.add_argument("--modes", default="train,infer,finetune")
  p.add_argument("--configs", default="minilm")
  p.add_argument("--seq_lengths", default="128")
  p.add_argument("--precisions", default="float32")
  p.add_argument("--device", choices=["cpu", "gpu"], default="cpu")
  p.add_argument("--batch_size", type=int, default=16)
  p.add_argument("--num_masked", type=int, default=20)
  p.add_argument("--warmup", type=int, default=3)
  p.add_argument("--steps", type=int, default=5)
  p.add_argument("--repeats", type=int, default=5)
  p.add_argument("--timeout", type=int, default=1800)
  p.add_argument("--peak_tflops", type=float, default=None,
                 help="accelerator peak for the MFU column (H100 SXM bf16 "
                 "dense: 989, A100: 312); default 989 with --device gpu.")
  p.add_argument("--output_json", default=os.path.join(
      ROOT, "bench", "results", "model_%d.json" % int(time.time())))
  args = p.parse_args()
  peak = args.peak_tflops or (989.0 if args.device == "gpu" else None)

  rows = []
  for mode in args.modes.split(","):
    for config in args.configs.split(","):
      for seq in [int(s) for s in args.seq_lengths.split(",")]:
        for precision in args.precisions.split(","):
          results = {}
          for peer in args.peers.split(","):
            print("running %s %s %s seq=%d %s ..." % (
                peer, mode, config, seq, precision), file=sys.stderr,
                  flush=True)
            results[peer] = run_peer(peer, mode, config, seq, precision, args)
          rows.append(((mode, config, seq, precision), results))
          print(format_table([rows[-1]], peak), flush=True)
  print("\n" + format_table(rows, peak))
  write_json(args.output_json, rows)


def write_json(path, rows):
  """Writes the raw results atomically (a temporary file, then a rename)."""
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  tmp = path + ".tmp"
  with open(tmp, "w") as f:
    json.dump([{"key": k, "results": r} for k, r in rows], f, indent=1)
  os.replace(tmp, path)


if __name__ == "__main__":
  main()
