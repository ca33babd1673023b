"""Benchmark peer: this project (Keras 3 on TensorFlow 2), as users run it.

train: `pretraining.model.PretrainingModel` (BERT + MLM head at the masked
positions + NSP head, the original losses) with
`optimization.create_optimizer` (AdamWeightDecay with the original maths,
global-norm clipping at 1.0), stepped by the runner's own training loop
(`runner.loops.TrainSteps`, what `runner.Estimator.train` and
run_pretraining.py execute): `--steps_per_call` steps (the runner's
iterations_per_loop) run inside one tf.function call, the input comes from a
prefetching tf.data iterator. finetune: the same with
`classifier.model.BertClassifier` (BERT + 2-class head). infer: the
`modeling.BertModel` forward pass (sequence + pooled output) in a
tf.function, outputs fetched to the host; below float32 without XLA, traced
as the text models' `predict` and the SavedModel run it, the dense weights
graph constants (`bert_tf2.common.frozen_weights`; --frozen_weights 0: read
from the variables on every call); without XLA in a process set to one op
a core, the batch run as one part a core side by side, as the loaders
(`bert_tf2.models.load_predictor`) set a fresh process and `predict`
runs (`bert_tf2.common.batch_parts`; --one_op_a_core 0: TensorFlow's
threads, the batch whole).

float32 is the parity mode (the original's numbers); bfloat16 builds the
model under the Keras "mixed_bfloat16" policy as `--precision=bfloat16` of
the scripts does (variables, LayerNorm, softmax and losses stay float32),
without XLA on CPU unless --jit_compile 1; int8 (inference only) runs the
BertModel as `ClassifierPredictor(precision="int8")` does (ONNX Runtime).

    python -m bench.peer_ours --mode train --config minilm
    python -m bench.peer_ours --mode infer --jit_compile 1 --fused_qkv 1
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing

# Defaults chosen by measurement on the benchmark machine (docs/performance.md);
# -1 on the command line means "use these".
DEFAULTS = {
    # (mode, device) -> jit_compile, fused_qkv, steps_per_call
    # XLA on CPU: +15% for the train step since dropout draws its mask from
    # modeling.dropout_layer's hash inside XLA (XLA:CPU's Philox made it 2x
    # slower before). Separate Q/K/V matmuls measured slightly faster than
    # the fused one under XLA.
    ("train", "cpu"): dict(jit_compile=True, fused_qkv=False,
                           steps_per_call=5),
    ("finetune", "cpu"): dict(jit_compile=True, fused_qkv=False,
                              steps_per_call=5),
    # Inference: without XLA, one op a core (as the loaders run it): on a
    # 2-core Xeon with AMX, MiniLM 16 x 128 float32 82.6 sequences/s
    # against 65.1 under XLA (which had been +50% over TensorFlow's
    # threads on an AVX2 EPYC).
    ("infer", "cpu"): dict(jit_compile=False, fused_qkv=False,
                           steps_per_call=1),
    ("train", "gpu"): dict(jit_compile=True, fused_qkv=True,
                           steps_per_call=10),
    ("finetune", "gpu"): dict(jit_compile=True, fused_qkv=True,
                              steps_per_call=10),
    ("infer", "gpu"): dict(jit_compile=True, fused_qkv=True,
                           steps_per_call=1),
}


def settings(args):
  """Resolves -1 options to the measured defaults for (mode, device)."""
  d = dict(DEFAULTS[(args.mode, args.device)])
  if args.precision == "bfloat16" and args.device == "cpu":
    # XLA:CPU halves TensorFlow's bfloat16 matmul rate (oneDNN without it):
    # the scripts' rule (bert_tf2/runner/speed_defaults.py) and the
    # predictors' bfloat16 (no XLA).
    d["jit_compile"] = False
  if args.jit_compile >= 0:
    d["jit_compile"] = bool(args.jit_compile)
  if args.fused_qkv >= 0:
    d["fused_qkv"] = bool(args.fused_qkv)
  if args.steps_per_call > 0:
    d["steps_per_call"] = args.steps_per_call
  if args.mode == "infer":
    d["steps_per_call"] = 1
  d["one_op_a_core"] = args.mode == "infer" and not d["jit_compile"]
  if args.one_op_a_core >= 0:
    d["one_op_a_core"] = bool(args.one_op_a_core)
  d["frozen_weights"] = (args.mode == "infer" and args.precision == "bfloat16"
                         and not d["jit_compile"])
  if args.frozen_weights >= 0:
    d["frozen_weights"] = bool(args.frozen_weights)
  return d


def _set_fused_qkv(model, fused):
  """Sets fused_qkv on every attention layer of a task's model."""
  from modeling import tf_internals  # pylint: disable=g-import-not-at-top
  from modeling import attention  # pylint: disable=g-import-not-at-top
  for layer in tf_internals.flatten_layers(model):
    if isinstance(layer, attention.SelfAttention):
      layer.fused_qkv = bool(fused)


def _features(batch, mode):
  keys = {"train": ("input_ids", "input_mask", "segment_ids",
                    "masked_lm_positions", "masked_lm_ids",
                    "masked_lm_weights", "next_sentence_labels"),
          "finetune": ("input_ids", "input_mask", "segment_ids",
                       "label_ids"),
          "infer": ("input_ids", "input_mask", "segment_ids")}[mode]
  return {k: batch[k] for k in keys}


def _int8_infer_step(cfg, features):
  """Inference as `ClassifierPredictor(precision="int8")` runs it: the
  BertModel (attention layout "matmul") exported to ONNX, dense weights
  dynamic int8 (`bert_tf2.predict.int8`), run by ONNX Runtime."""
  import modeling  # pylint: disable=g-import-not-at-top
  from bert_tf2.predict import int8 as int8_lib  # pylint: disable=g-import-not-at-top
  model = modeling.BertModel(cfg, attention_layout="matmul")

  def forward(input_ids, input_mask, segment_ids):
    out = model({"input_ids": input_ids, "input_mask": input_mask,
                 "token_type_ids": segment_ids}, training=False)
    return out["sequence_output"], out["pooled_output"]
  session = int8_lib.quantize(forward)
  arrays = [features[k] for k in ("input_ids", "input_mask", "segment_ids")]
  return lambda: session(*arrays)


def build(args, opts):
  """Returns step_fn() running opts["steps_per_call"] steps to completion."""
  if args.device == "cpu":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
  os.environ.setdefault("KERAS_BACKEND", "tensorflow")
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import modeling  # pylint: disable=g-import-not-at-top
  from bert_tf2.common import batch_parts  # pylint: disable=g-import-not-at-top
  if opts.get("one_op_a_core"):  # Before TensorFlow's first op.
    opts["one_op_a_core"] = batch_parts.one_op_a_core()  # False: 1 core.
  from bert_tf2.runner import precision  # pylint: disable=g-import-not-at-top

  cfg = modeling.BertConfig.from_dict(shapes.config_dict(args.config))
  batch = shapes.make_batch(shapes.SHAPES[args.config], args.batch_size,
                            args.seq_length, args.num_masked)
  features = _features(batch, args.mode)

  if args.mode == "infer" and args.precision == "int8":
    return _int8_infer_step(cfg, features)
  if args.mode == "infer":
    with precision.policy_scope(args.precision):
      model = modeling.BertModel(cfg, fused_qkv=opts["fused_qkv"])

    def whole(f):
      out = model({"input_ids": f["input_ids"], "input_mask": f["input_mask"],
                   "token_type_ids": f["segment_ids"]}, training=False)
      return out["sequence_output"], out["pooled_output"]
    parts = (batch_parts.predict_parts(model.compute_dtype)
             if opts.get("one_op_a_core") else 1)
    forward = (whole if parts < 2 else
               lambda f: batch_parts.in_parts(whole, f, parts))
    tensors = {k: tf.constant(v) for k, v in features.items()}
    if opts["frozen_weights"]:
      from bert_tf2.common import frozen_weights  # pylint: disable=g-import-not-at-top
      fn = frozen_weights.FrozenStep(model, forward, tf.nest.map_structure(
          tf.TensorSpec.from_tensor, tensors))
    else:
      fn = tf.function(forward, jit_compile=opts["jit_compile"])

    def infer_step():
      seq, pooled = fn(tensors)
      return seq.numpy(), pooled.numpy()
    return infer_step

  import optimization  # pylint: disable=g-import-not-at-top
  from bert_tf2.runner import loops  # pylint: disable=g-import-not-at-top
  from bert_tf2.runner import task as runner_task  # pylint: disable=g-import-not-at-top
  if args.mode == "train":
    from bert_tf2.pretraining.model import PretrainingModel  # pylint: disable=g-import-not-at-top
    task = runner_task.ModelTask(lambda: PretrainingModel(cfg))
    lr = 1e-4
  else:
    from bert_tf2.classifier.model import BertClassifier  # pylint: disable=g-import-not-at-top
    task = runner_task.ModelTask(lambda: BertClassifier(cfg, num_labels=2))
    lr = 2e-5
  strategy = tf.distribute.get_strategy()
  with precision.policy_scope(args.precision):
    model = task.build_model()
    _set_fused_qkv(model, opts["fused_qkv"])
    task.compute_loss(model, {k: tf.constant(v) for k, v in features.items()},
                      training=False)
  optimizer = optimization.create_optimizer(lr, 10000, 100)
  optimizer.gradients_aggregated = True
  optimizer.set_variable_names(task.checkpoint_variables(model))
  optimizer.build(model.trainable_variables)
  steps = loops.TrainSteps(task, model, optimizer, strategy, aggregated=True,
                           jit_compile=opts["jit_compile"])
  dataset = tf.data.Dataset.from_tensors(features).repeat().prefetch(
      tf.data.AUTOTUNE)
  iterator = iter(strategy.experimental_distribute_dataset(dataset))
  stop_flag = tf.Variable(False, trainable=False)
  n = tf.constant(opts["steps_per_call"], tf.int32)

  def train_step():
    done, loss_sum, ok, _, _ = steps.loop(iterator, n, stop_flag)
    if not bool(ok):
      raise FloatingPointError("non-finite loss %s" % float(loss_sum))
    return int(done)
  return train_step


def main():
  parser = timing.peer_arg_parser(__doc__)
  parser.add_argument("--fused_qkv", type=int, default=-1,
                      help="-1: measured default; 0 or 1 to force.")
  parser.add_argument("--frozen_weights", type=int, default=-1,
                      help="infer: -1: below float32 without XLA (as the "
                      "text models' predict); 0 or 1 to force.")
  parser.add_argument("--one_op_a_core", type=int, default=-1,
                      help="infer: -1: without XLA (as the loaders set a "
                      "fresh process); 0 or 1 to force.")
  parser.add_argument("--steps_per_call", type=int, default=0,
                      help="training steps per tf.function call (the "
                      "runner's iterations_per_loop); 0: measured default.")
  args = parser.parse_args()
  if timing.skip_int8_training(args):
    return
  opts = settings(args)
  step = build(args, opts)
  note = "ONNX Runtime dynamic int8" if args.precision == "int8" else (
      "jit=%d qkv=%s loop=%d%s" % (
      opts["jit_compile"], "fused" if opts["fused_qkv"] else "separate",
      opts["steps_per_call"],
      " frozen" if opts.get("frozen_weights") else "") + (
      " one-op-a-core" if opts.get("one_op_a_core") else ""))
  timing.report("ours (TF2/Keras 3)", args, step, note=note,
                steps_per_call=opts["steps_per_call"])


if __name__ == "__main__":
  main()
