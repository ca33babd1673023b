"""Side-by-side model benchmarks: this project vs the original, keras-hub, HF.

Each peer runs in its own subprocess (they need incompatible TensorFlow
modes) on the same shape, batch and synthetic data; warm-up is excluded and
each run reports the median of several repeats. The peers are interleaved
(`--rounds`: A B C, A B C, ...), so a slow spell of a shared host falls on
every peer alike: the table gives each peer's median over the rounds and the
median (with min and max) of the per-round ratios ours / peer. It starts
with the CPU model, the flags that matter, the load and the matmul ceiling
(`bench.ceiling`) measured in the same run, and gives each peer's GFLOP/s as
a share of that ceiling. Writes every round as JSON.

    python -m bench.bench_model --modes train,infer,finetune \
        --configs minilm --seq_lengths 128 --batch_size 16
    python -m bench.bench_model --device gpu --peers ours \
        --configs base,large --seq_lengths 128,512 --precisions bfloat16
"""

import argparse
import json
import os
import statistics
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
# Peers whose packages (keras-hub, torch, transformers) are not in the
# project's environment: run with --peers_python.
OTHER_ENV_PEERS = ("keras_hub", "hf")


def run_peer(peer, mode, config, seq_length, precision, args,
             batch_size=None, num_masked=None, extra=()):
  """Runs one peer in a subprocess; returns its best RESULT dict or None."""
  python = sys.executable
  if peer in OTHER_ENV_PEERS and getattr(args, "peers_python", None):
    python = args.peers_python
  cmd = [python, "-m", PEERS[peer], "--mode", mode, "--config", config,
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


def summarize(rounds):
  """Per-peer medians and ours-vs-peer ratios over interleaved rounds.

  Args:
    rounds: list (one per round) of {peer: RESULT dict or None}.

  Returns:
    {peer: {"seq_per_s": median over rounds, "gflops_per_s": median,
    "all": [seq/s per round], "ratio": median of the per-round ratios
    ours / peer (None for ours or without ours), "ratio_min", "ratio_max",
    "note"}} for every peer with at least one result.

    >>> r = lambda v: {"seq_per_s": v, "gflops_per_s": v, "peer": "p"}
    >>> s = summarize([{"ours": r(12.), "b": r(10.)},
    ...                {"ours": r(6.), "b": r(6.)},
    ...                {"ours": r(11.), "b": r(10.)}])
    >>> s["ours"]["seq_per_s"], s["b"]["ratio"], s["b"]["ratio_min"]
    (11.0, 1.1, 1.0)
  """
  out = {}
  peers = []
  for rnd in rounds:
    peers += [p for p in rnd if p not in peers]
  for peer in peers:
    done = [(i, rnd[peer]) for i, rnd in enumerate(rounds)
            if rnd.get(peer)]
    if not done:
      continue
    ratios = [rounds[i]["ours"]["seq_per_s"] / r["seq_per_s"]
              for i, r in done if peer != "ours" and rounds[i].get("ours")]
    out[peer] = {
        "name": done[0][1]["peer"], "note": done[0][1].get("note", ""),
        "seq_per_s": statistics.median(r["seq_per_s"] for _, r in done),
        "gflops_per_s": statistics.median(r["gflops_per_s"] for _, r in done),
        "all": [r["seq_per_s"] for _, r in done],
        "ratio": statistics.median(ratios) if ratios else None,
        "ratio_min": min(ratios) if ratios else None,
        "ratio_max": max(ratios) if ratios else None,
    }
  return out


def format_table(rows, ceiling=None, peak_tflops=None):
  """Markdown table of summarized rows.

  `ceiling`: GFLOP/s of the matmul chain (bench.ceiling) measured in the
  same run, one number (float32) or {precision: GFLOP/s} (a row's share is
  of its own precision's ceiling, else float32's): adds a "% of ceiling"
  column. `peak_tflops`: an MFU column.
  """
  if ceiling and not isinstance(ceiling, dict):
    ceiling = {"float32": ceiling}
  extra_head = ""
  if ceiling:
    extra_head += " % of ceiling |"
  if peak_tflops:
    extra_head += " MFU |"
  lines = ["| mode | config | seq | precision | peer | seq/s (median) | "
           "per round | GFLOP/s |%s ours vs peer (median [min-max] of "
           "per-round ratios) |" % extra_head,
           "|---|---|---|---|---|---|---|---|%s---|" % (
               "---|" * extra_head.count("|"))]
  for (mode, config, seq, precision), summary in rows:
    for peer, r in summary.items():
      ratio = ("%.2fx [%.2f-%.2f]" % (r["ratio"], r["ratio_min"],
                                      r["ratio_max"])
               if r["ratio"] is not None else "")
      name = r["name"] + (" (%s)" % r["note"] if r["note"] else "")
      extra = ""
      if ceiling:
        extra += " %.0f%% |" % (100.0 * r["gflops_per_s"] / ceiling.get(
            precision, ceiling["float32"]))
      if peak_tflops:
        extra += " %.1f%% |" % (100.0 * r["gflops_per_s"] /
                                (peak_tflops * 1e3))
      lines.append("| %s | %s | %d | %s | %s | %.1f | %s | %.0f |%s %s |" % (
          mode, config, seq, precision, name, r["seq_per_s"],
          " ".join("%.1f" % v for v in r["all"]), r["gflops_per_s"], extra,
          ratio))
  return "\n".join(lines)


def machine_header(ceiling_rows=None):
  """Lines naming the CPU, the flags that matter, the load and the ceiling."""
  model, flags = cpu_info()
  lines = ["CPU: %s; %d cores; flags: %s" % (
      model, os.cpu_count() or 0, " ".join(flags) or "none of interest"),
           "load average (1, 5, 15 min): %.2f %.2f %.2f" % os.getloadavg()]
  if ceiling_rows:
    lines.append("matmul ceiling (bench.ceiling, same run): " + ", ".join(
        "%s %s%s %.0f GFLOP/s" % (r["library"], r["dtype"],
                                  " XLA" if r["xla"] else "",
                                  r["gflops_per_s"]) for r in ceiling_rows))
  return lines


INTERESTING_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16",
                     "amx_bf16", "amx_int8", "amx_tile")


def cpu_info(cpuinfo="/proc/cpuinfo"):
  """(model name, [flags of INTERESTING_FLAGS present]) from /proc/cpuinfo."""
  model, flags = "unknown CPU", set()
  try:
    with open(cpuinfo) as f:
      for line in f:
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown CPU":
          model = value.strip()
        elif key == "flags":
          flags.update(value.split())
  except OSError:
    pass
  return model, [f for f in INTERESTING_FLAGS if f in flags]


def run_ceiling(args):
  """bench.ceiling's rows for the first config and sequence length."""
  cmd = [sys.executable, "-m", "bench.ceiling", "--json",
         "--config", args.configs.split(",")[0],
         "--seq_length", args.seq_lengths.split(",")[0],
         "--batch_size", str(args.batch_size)]
  env = dict(os.environ)
  env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
  proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True,
                        text=True, timeout=args.timeout, check=False)
  return [json.loads(line[len("CEILING "):])
          for line in proc.stdout.splitlines() if line.startswith("CEILING ")]


def tensorflow_ceilings(ceiling_rows):
  """{dtype: best TensorFlow GFLOP/s, XLA or not} of bench.ceiling's rows.

  None when there is no float32 row (the table then has no "% of ceiling").

  >>> tensorflow_ceilings([
  ...     {"library": "tensorflow", "dtype": "float32", "gflops_per_s": 4.0},
  ...     {"library": "tensorflow", "dtype": "bfloat16", "gflops_per_s": 9.0},
  ...     {"library": "torch", "dtype": "bfloat16", "gflops_per_s": 12.0}])
  {'float32': 4.0, 'bfloat16': 9.0}
  """
  best = {}
  for r in ceiling_rows:
    if r["library"] == "tensorflow":
      best[r["dtype"]] = max(best.get(r["dtype"], 0.0), r["gflops_per_s"])
  return best if best.get("float32") else None


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
  p.add_argument("--rounds", type=int, default=3,
                 help="interleaved rounds: every peer once per round, in "
                 "turn (A B C A B C ...); medians over rounds.")
  p.add_argument("--ceiling", type=int, default=1,
                 help="1: measure the matmul ceiling (bench.ceiling) in the "
                 "same run and report each peer's share of it.")
  p.add_argument("--peers_python", default=os.environ.get(
      "BENCH_PEERS_PYTHON"), help="the python of an environment with "
                 "keras-hub, torch and transformers, for those peers "
                 "(default $BENCH_PEERS_PYTHON, else this python)")
  p.add_argument("--timeout", type=int, default=1800)
  p.add_argument("--peak_tflops", type=float, default=None,
                 help="accelerator peak for the MFU column (H100 SXM bf16 "
                 "dense: 989, A100: 312); default 989 with --device gpu.")
  p.add_argument("--output_json", default=os.path.join(
      ROOT, "bench", "results", "model_%d.json" % int(time.time())))
  args = p.parse_args()
  if args.rounds < 1:
    p.error("--rounds must be at least 1")
  peak = args.peak_tflops or (989.0 if args.device == "gpu" else None)
  ceiling_rows = (run_ceiling(args) if args.ceiling and args.device == "cpu"
                  else [])
  ceilings = tensorflow_ceilings(ceiling_rows)
  header = machine_header(ceiling_rows)
  for line in header:
    print(line, flush=True)

  rows, raw = [], []
  for mode in args.modes.split(","):
    for config in args.configs.split(","):
      for seq in [int(s) for s in args.seq_lengths.split(",")]:
        for precision in args.precisions.split(","):
          rounds = []
          for i in range(args.rounds):
            results = {}
            for peer in args.peers.split(","):
              print("round %d/%d: %s %s %s seq=%d %s ..." % (
                  i + 1, args.rounds, peer, mode, config, seq, precision),
                    file=sys.stderr, flush=True)
              results[peer] = run_peer(peer, mode, config, seq, precision,
                                       args)
            rounds.append(results)
          key = (mode, config, seq, precision)
          rows.append((key, summarize(rounds)))
          raw.append((key, rounds))
          print(format_table([rows[-1]], ceilings, peak), flush=True)
  print("\n" + "\n".join(header))
  print(format_table(rows, ceilings, peak))
  write_json(args.output_json, raw, header, ceiling_rows)


def write_json(path, raw, header=(), ceiling_rows=()):
  """Writes every round's results atomically (a temporary file, a rename)."""
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  tmp = path + ".tmp"
  with open(tmp, "w") as f:
    json.dump({"machine": list(header), "ceiling": list(ceiling_rows),
               "rows": [{"key": k, "rounds": r} for k, r in raw]},
              f, indent=1)
  os.replace(tmp, path)


if __name__ == "__main__":
  main()
