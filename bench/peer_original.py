"""Benchmark peer: Google's original BERT code (TF1 graph mode, compat.v1).

Runs `bert-tensorflow==1.0.4` through the same loader as the golden tests
(contrib layer_norm shim) and times `session.run` of the train op (MLM + NSP
+ the original AdamWeightDecay), the classifier's train op, or the forward
pass (sequence + pooled output). Inputs are graph constants, so no feeding
cost is measured; float32 only (the original has no mixed precision).

    python -m bench.peer_original --mode train --config minilm
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


def build(args):
  if args.device == "cpu":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
  else:
    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
  from tests.golden import original  # pylint: disable=g-import-not-at-top
  tf = original.tf
  modeling = original.load("modeling")
  optimization = original.load("optimization")
  shape = shapes.SHAPES[args.config]
  cfg = modeling.BertConfig.from_dict(shapes.config_dict(args.config))
  batch = shapes.make_batch(shape, args.batch_size, args.seq_length,
                            args.num_masked)
  t = {k: tf.constant(v) for k, v in batch.items()}
  is_training = args.mode != "infer"
  if args.mode == "finetune":
    run_classifier = original.load("run_classifier")
    loss = run_classifier.create_model(
        cfg, True, t["input_ids"], t["input_mask"], t["segment_ids"],
        t["label_ids"], 2, False)[0]
    fetch = optimization.create_optimizer(loss, 2e-5, 10000, 100, False)
  else:
    model = modeling.BertModel(
        config=cfg, is_training=is_training, input_ids=t["input_ids"],
        input_mask=t["input_mask"], token_type_ids=t["segment_ids"])
    if args.mode == "infer":
      fetch = [model.get_sequence_output(), model.get_pooled_output()]
    else:
      run_pretraining = original.load("run_pretraining")
      mlm_loss = run_pretraining.get_masked_lm_output(
          cfg, model.get_sequence_output(), model.get_embedding_table(),
          t["masked_lm_positions"], t["masked_lm_ids"],
          t["masked_lm_weights"])[0]
      nsp_loss = run_pretraining.get_next_sentence_output(
          cfg, model.get_pooled_output(), t["next_sentence_labels"])[0]
      fetch = optimization.create_optimizer(mlm_loss + nsp_loss, 1e-4, 10000,
                                            100, False)
  sess = tf.Session()
  sess.run(tf.global_variables_initializer())
  return lambda: sess.run(fetch)


def main():
  args = timing.peer_arg_parser(__doc__).parse_args()
  if args.precision != "float32":
    print("RESULT_SKIP original code has no %s mode" % args.precision)
    return
  timing.report("original (TF1 compat.v1)", args, build(args))


if __name__ == "__main__":
  main()
