"""Where a step's CPU time goes: oneDNN's matmul kernels, XLA's code, the rest.

Runs the step of `bench.peer_ours` for a fixed time while Linux `perf`
samples this process, with oneDNN naming its JIT kernels
(`ONEDNN_JIT_PROFILE=2` writes /tmp/perf-PID.map), and prints:

- the step time, the CPU time per step (getrusage) and the cores it kept
  busy;
- the CPU share of each kind of code: oneDNN's matmul kernels (brgemm,
  gemm, their copy and reorder kernels), XLA's generated code (JIT code
  oneDNN did not name, and the YNNPACK/XNNPACK kernels XLA calls),
  TensorFlow's runtime and Eigen kernels, the OS, the rest;
- the matmul rate in the CPU time the matmuls got: the step's matmul FLOPs
  (`bench.shapes`) over their CPU seconds, times the cores busy. Beside the
  matmul ceiling (`bench.ceiling --training`) it tells whether a step below
  the ceiling has slow matmuls or too much other work.

`--mode ceiling` is the control: the training chain of `bench.ceiling`
(matmuls only) through the same measurement, whose matmul share must come
out near 100% and its matmul rate near its own GFLOP/s.

Needs `perf` (Debian: linux-perf) and a Linux allowing it to sample its own
processes (kernel.perf_event_paranoid <= 2).

    python -m bench.cpu_split --mode finetune --precision bfloat16
    python -m bench.cpu_split --mode ceiling --precision bfloat16
"""

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top

# Categories, first match wins, on perf's symbol names.
_CATEGORIES = (
    ("onednn matmul", re.compile(
        r"^(jit_brgemm|jit_avx\w*gemm|jit_avx\w*_copy|jit_uni_reorder|"
        r"inner_product|brgemm|gemm_)")),
    ("onednn other", re.compile(r"^jit_")),
    ("XLA code", re.compile(r"^(0x[0-9a-f]+|ynn::|xnn_)")),
    ("TensorFlow runtime", re.compile(r"^(Eigen::|tensorflow::|tsl::)")),
)
CATEGORY_NAMES = tuple(name for name, _ in _CATEGORIES) + ("OS", "other")


def categorize(symbol, kernel=False):
  """The category of a perf symbol (its `[k]` flag: `kernel`).

  >>> categorize("jit_brgemm_kernel_t.47"), categorize("0x00007f0a1b2c")
  ('onednn matmul', 'XLA code')
  >>> categorize("finish_task_switch", kernel=True), categorize("malloc")
  ('OS', 'other')
  """
  if kernel:
    return "OS"
  for name, pattern in _CATEGORIES:
    if pattern.match(symbol):
      return name
  return "other"


def split_report(report_text):
  """{category: percent of samples} from `perf report --stdio --sort sym
  --no-children` text (lines "  12.16%  [.] symbol")."""
  shares = dict.fromkeys(CATEGORY_NAMES, 0.0)
  for line in report_text.splitlines():
    m = re.match(r"^\s+([0-9.]+)%\s+\[([.k])\]\s+(\S.*)$", line)
    if m:
      name = categorize(m.group(3).strip(), kernel=m.group(2) == "k")
      shares[name] += float(m.group(1))
  return shares


def matmul_rate(gflop_per_step, cpu_seconds_per_step, matmul_share, busy):
  """GFLOP/s the matmuls ran at in the CPU time they got, scaled to the
  cores the step kept busy (comparable with the ceiling's GFLOP/s).

  >>> round(matmul_rate(100.0, 0.5, 50.0, 2.0))
  800
  """
  return gflop_per_step / (cpu_seconds_per_step * matmul_share / 100.0) * busy


def _ceiling_step(args):
  """(step_fn, GFLOP per call, 1): bench.ceiling's training chain, bfloat16 or
  float32, without XLA."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from bench import ceiling  # pylint: disable=g-import-not-at-top
  chain = ceiling.chain_shapes(shapes.SHAPES[args.config],
                               args.batch_size * args.seq_length)
  x0, weights = ceiling.chain_operands(chain, args.precision)
  run = tf.function(lambda: ceiling.training_chain(x0, weights))
  return (lambda: run().numpy()), 3 * ceiling.chain_flops(chain) / 1e9, 1


def _model_step(args):
  """(step_fn, GFLOP per call, steps per call): bench.peer_ours' step at
  its defaults."""
  from bench import peer_ours  # pylint: disable=g-import-not-at-top
  opts = peer_ours.settings(args)
  per_seq = shapes.flops_per_sequence(shapes.SHAPES[args.config],
                                      args.seq_length, args.num_masked,
                                      args.mode)
  steps = opts["steps_per_call"] if args.mode != "infer" else 1
  return (peer_ours.build(args, opts),
          per_seq * args.batch_size * steps / 1e9, steps)


def measure(args, perf="perf"):
  """Runs the step under perf for args.seconds; returns a result dict."""
  build = _ceiling_step if args.mode == "ceiling" else _model_step
  step, gflop, steps = build(args)
  for _ in range(args.warmup):
    step()
  with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "perf.data")
    recorder = subprocess.Popen(
        [perf, "record", "-q", "-F", "499", "-p", str(os.getpid()), "-o",
         data, "--", "sleep", str(args.seconds)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5)  # perf attaches.
    r0, t0, calls = resource.getrusage(resource.RUSAGE_SELF), time.time(), 0
    while recorder.poll() is None:
      step()
      calls += 1
    wall = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    if recorder.returncode != 0:
      raise RuntimeError("perf record failed: %s"
                         % recorder.stderr.read().decode()[-500:])
    report = subprocess.run(
        [perf, "report", "-i", data, "--stdio", "--no-children", "--sort",
         "sym"], capture_output=True, text=True, check=True).stdout
  perf_map = "/tmp/perf-%d.map" % os.getpid()
  if os.path.exists(perf_map):  # oneDNN's, for the report only.
    os.remove(perf_map)
  cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
  shares = split_report(report)
  busy = cpu / wall
  return {
      "mode": args.mode, "precision": args.precision, "calls": calls,
      "steps_per_call": steps,
      "ms_per_call": 1000.0 * wall / calls,
      "cpu_ms_per_call": 1000.0 * cpu / calls, "cores_busy": busy,
      "gflop_per_call": gflop, "gflops_per_s": gflop * calls / wall,
      "shares": shares,
      "matmul_gflops_in_its_cpu_time": matmul_rate(
          gflop, cpu / calls, shares["onednn matmul"], busy),
  }


def format_result(r):
  """The result as a few lines of text."""
  lines = ["%s %s: %.1f ms a call of %d step(s), %.1f CPU-ms (%.2f cores "
           "busy), %.0f GFLOP/s" % (
               r["mode"], r["precision"], r["ms_per_call"],
               r["steps_per_call"], r["cpu_ms_per_call"], r["cores_busy"],
               r["gflops_per_s"])]
  for name in CATEGORY_NAMES:
    lines.append("  %-18s %5.1f%%" % (name, r["shares"][name]))
  lines.append("  matmuls in their CPU time: %.0f GFLOP/s"
               % r["matmul_gflops_in_its_cpu_time"])
  return "\n".join(lines)


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--mode", default="finetune",
                      choices=("train", "finetune", "infer", "ceiling"))
  parser.add_argument("--precision", default="bfloat16",
                      choices=("float32", "bfloat16"))
  parser.add_argument("--config", default="minilm")
  parser.add_argument("--seq_length", type=int, default=128)
  parser.add_argument("--batch_size", type=int, default=16)
  parser.add_argument("--num_masked", type=int, default=20)
  parser.add_argument("--seconds", type=float, default=15.0)
  parser.add_argument("--warmup", type=int, default=3)
  args = parser.parse_args()
  perf = shutil.which("perf")
  if perf is None:
    sys.exit("bench.cpu_split: `perf` not found (Debian: apt-get install "
             "linux-perf)")
  # Before TensorFlow loads oneDNN: name its JIT kernels for perf.
  os.environ["ONEDNN_JIT_PROFILE"] = "2"
  os.environ["CUDA_VISIBLE_DEVICES"] = ""
  args.device, args.jit_compile, args.fused_qkv = "cpu", -1, -1
  args.steps_per_call = 0
  print(format_result(measure(args, perf)))


if __name__ == "__main__":
  main()
