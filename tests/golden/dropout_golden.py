"""Training-mode (dropout) outputs of Google's original code, for statistics.

    python -m tests.golden.dropout_golden SPEC.json

SPEC.json is a list of cases; each builds the original graph with
is_training=True, initialises it from case["ckpt"] (init_from_checkpoint) and
writes one .npz of its outputs on case["inputs"] (input_ids, input_mask,
token_type_ids: one example repeated on every row, so that each row is an
independent draw of the dropout masks). Kinds:
  "encoder":    modeling.BertModel -> embedding_output, layer_<i>.
  "classifier": run_classifier.create_model -> logits.
"""

import json
import sys

import numpy as np

from tests.golden import original

tf = original.tf
modeling = original.load("modeling")


def _graph(case, config, inputs):
  ids = tf.constant(inputs["input_ids"], tf.int32)
  mask = tf.constant(inputs["input_mask"], tf.int32)
  types = tf.constant(inputs["token_type_ids"], tf.int32)
  if case["kind"] == "classifier":
    rc = original.load("run_classifier")
    labels = tf.zeros([ids.shape[0]], tf.int32)
    _, _, logits, _ = rc.create_model(config, True, ids, mask, types, labels,
                                      case["num_labels"], False)
    return {"logits": logits}
  model = modeling.BertModel(config=config, is_training=True, input_ids=ids,
                             input_mask=mask, token_type_ids=types)
  fetch = {"embedding_output": model.get_embedding_output()}
  for i, layer in enumerate(model.get_all_encoder_layers()):
    fetch["layer_%d" % i] = layer
  return fetch


def main(spec_path):
  with open(spec_path) as f:
    cases = json.load(f)
  for case in cases:
    config = modeling.BertConfig.from_json_file(case["config"])
    inputs = dict(np.load(case["inputs"]))
    with tf.Graph().as_default():
      tf.set_random_seed(case.get("seed", 1))
      fetch = _graph(case, config, inputs)
      tvars = tf.trainable_variables()
      assignment_map, _ = modeling.get_assignment_map_from_checkpoint(
          tvars, case["ckpt"])
      tf.train.init_from_checkpoint(case["ckpt"], assignment_map)
      with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        results = sess.run(fetch)
    np.savez(case["out"], **{k: np.asarray(v) for k, v in results.items()})
    print("done", case["out"])


if __name__ == "__main__":
  main(sys.argv[1])
