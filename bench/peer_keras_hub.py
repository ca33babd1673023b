"""Benchmark peer: keras-hub's BERT on Keras 3 (TensorFlow backend).

train: `BertMaskedLM` (keras-hub has no NSP head) with AdamW (weight decay
0.01, epsilon 1e-6, global clipnorm 1.0) via `train_on_batch`;
finetune: `BertTextClassifier`; infer: the `BertBackbone` forward pass
(sequence + pooled output) in a `tf.function`. XLA: by default both with and
without `jit_compile` are timed and the faster is reported, so the peer is
shown at its best.

`--steps_per_execution N` (train/finetune): Keras' own loop instead,
`model.fit` on a repeated dataset with `compile(steps_per_execution=N)`,
N steps per `fit` call, jit_compile False, True and "auto" tried.

    python -m bench.peer_keras_hub --mode infer --config minilm
    python -m bench.peer_keras_hub --mode finetune --batch_size 32 \
        --steps_per_execution 4
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


def make_backbone(config):
  """keras-hub's BertBackbone of shape `config` (random weights)."""
  import keras_hub  # pylint: disable=g-import-not-at-top
  shape = shapes.SHAPES[config]
  return keras_hub.models.BertBackbone(
      vocabulary_size=shape["vocab_size"],
      num_layers=shape["num_hidden_layers"],
      num_heads=shape["num_attention_heads"],
      hidden_dim=shape["hidden_size"],
      intermediate_dim=shape["intermediate_size"],
      max_sequence_length=512, num_segments=2)


def build(args, jit_compile):
  os.environ.setdefault("KERAS_BACKEND", "tensorflow")
  if args.device == "cpu":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
  import keras  # pylint: disable=g-import-not-at-top
  import keras_hub  # pylint: disable=g-import-not-at-top
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  if args.precision == "bfloat16":
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
  shape = shapes.SHAPES[args.config]
  batch = shapes.make_batch(shape, args.batch_size, args.seq_length,
                            args.num_masked)
  backbone = make_backbone(args.config)
  x = {"token_ids": batch["input_ids"],
       "padding_mask": batch["input_mask"].astype(bool),
       "segment_ids": batch["segment_ids"]}
  if args.mode == "infer":
    if args.precision == "int8":
      backbone.quantize("int8")  # Keras' own int8 (keras-hub's path).
    fn = tf.function(lambda inputs: backbone(inputs, training=False),
                     jit_compile=jit_compile)
    xt = {k: tf.constant(v) for k, v in x.items()}

    def step():
      out = fn(xt)
      return out["sequence_output"].numpy(), out["pooled_output"].numpy()
    return step
  optimizer = keras.optimizers.AdamW(learning_rate=1e-4, weight_decay=0.01,
                                     epsilon=1e-6, global_clipnorm=1.0)
  if args.mode == "train":
    model = keras_hub.models.BertMaskedLM(backbone, preprocessor=None)
    x["mask_positions"] = batch["masked_lm_positions"]
    y, sw = batch["masked_lm_ids"], batch["masked_lm_weights"]
  else:
    model = keras_hub.models.BertTextClassifier(backbone, num_classes=2,
                                                preprocessor=None)
    y, sw = batch["label_ids"], None
  per_call = args.steps_per_execution
  model.compile(optimizer=optimizer,
                loss=keras.losses.SparseCategoricalCrossentropy(
                    from_logits=True),
                weighted_metrics=[], jit_compile=jit_compile,
                steps_per_execution=max(1, per_call))
  if not per_call:
    return lambda: model.train_on_batch(x, y, sample_weight=sw)
  data = (x, y) if sw is None else (x, y, sw)
  dataset = tf.data.Dataset.from_tensors(data).repeat()
  return lambda: model.fit(dataset, steps_per_epoch=per_call, epochs=1,
                           verbose=0)


def _jit_choices(args):
  if args.jit_compile >= 0:
    return [bool(args.jit_compile)]
  if args.steps_per_execution and args.mode != "infer":
    return [False, True, "auto"]
  return [False, True]


def main():
  parser = timing.peer_arg_parser(__doc__)
  parser.add_argument("--steps_per_execution", type=int, default=0,
                      help="train/finetune: time model.fit with this "
                      "steps_per_execution (0: train_on_batch)")
  args = parser.parse_args()
  if timing.skip_int8_training(args):
    return
  best = None
  for jit in _jit_choices(args):
    per_call = args.steps_per_execution if args.mode != "infer" else 0
    note = "jit_compile=%s" % jit + (
        ", fit, steps_per_execution=%d" % per_call if per_call else "")
    result = timing.report("keras-hub", args, build(args, jit), note=note,
                           steps_per_call=max(1, per_call))
    if best is None or result["seq_per_s"] > best["seq_per_s"]:
      best = result
  print("BEST " + str(best["note"]), flush=True)


if __name__ == "__main__":
  main()
