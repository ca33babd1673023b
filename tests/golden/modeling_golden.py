"""Golden outputs of Google's original modeling code (run in a subprocess).

    python -m tests.golden.modeling_golden SPEC.json

SPEC.json is a list of cases; each writes one .npz of the original's
outputs. Kinds:
  "load":  build the original BertModel + the original pretraining heads
           (run_pretraining.get_masked_lm_output / get_next_sentence_output)
           and, in separate graphs, run_classifier.create_model and
           run_squad.create_model; initialise them from case["ckpt"] with the
           original's get_assignment_map_from_checkpoint +
           tf.train.init_from_checkpoint; evaluate on case["inputs"].
  "save":  build the pretraining graph with random weights (seeded), save it
           with tf.train.Saver (plus global_step and an adam_m slot) to
           case["ckpt_out"], and evaluate it.
Case fields: config (bert_config.json path), inputs (.npz with input_ids,
input_mask, token_type_ids, masked_lm_positions, masked_lm_ids,
masked_lm_weights, next_sentence_labels, labels, num_labels), out (.npz),
use_one_hot (bool), heads (list of "pretraining", "classifier", "squad").
"""

import json
import sys

import numpy as np

from tests.golden import original

tf = original.tf
modeling = original.load("modeling")
_SCRIPTS = {}


def _script(name):
  """Loads bert.<name>, first removing flags defined by other scripts."""
  if name in _SCRIPTS:
    return _SCRIPTS[name]
  from absl import flags  # pylint: disable=g-import-not-at-top
  for other in list(_SCRIPTS):
    for flag in list(flags.FLAGS.flags_by_module_dict().get("bert." + other,
                                                            [])):
      if flag.name in flags.FLAGS:
        delattr(flags.FLAGS, flag.name)
  _SCRIPTS[name] = original.load(name)
  return _SCRIPTS[name]


def _const(inputs, key, dtype=tf.int32):
  return tf.constant(inputs[key], dtype=dtype)


def _pretraining_graph(config, inputs, use_one_hot):
  rp = _script("run_pretraining")
  model = modeling.BertModel(
      config=config, is_training=False, input_ids=_const(inputs, "input_ids"),
      input_mask=_const(inputs, "input_mask"),
      token_type_ids=_const(inputs, "token_type_ids"),
      use_one_hot_embeddings=use_one_hot)
  fetch = {
      "embedding_output": model.get_embedding_output(),
      "word_embedding_output": model.get_word_embedding_output(),
      "sequence_output": model.get_sequence_output(),
      "pooled_output": model.get_pooled_output(),
  }
  for i, layer in enumerate(model.get_all_encoder_layers()):
    fetch["layer_%d" % i] = layer
  mlm_loss, mlm_per_example, mlm_log_probs = rp.get_masked_lm_output(
      config, model.get_sequence_output(), model.get_embedding_table(),
      _const(inputs, "masked_lm_positions"), _const(inputs, "masked_lm_ids"),
      _const(inputs, "masked_lm_weights", tf.float32))
  nsp_loss, nsp_per_example, nsp_log_probs = rp.get_next_sentence_output(
      config, model.get_pooled_output(),
      _const(inputs, "next_sentence_labels"))
  fetch.update(mlm_loss=mlm_loss, mlm_per_example=mlm_per_example,
               mlm_log_probs=mlm_log_probs, nsp_loss=nsp_loss,
               nsp_per_example=nsp_per_example, nsp_log_probs=nsp_log_probs)
  return fetch


def _classifier_graph(config, inputs, use_one_hot):
  rc = _script("run_classifier")
  loss, per_example, logits, probs = rc.create_model(
      config, False, _const(inputs, "input_ids"),
      _const(inputs, "input_mask"), _const(inputs, "token_type_ids"),
      _const(inputs, "labels"), int(inputs["num_labels"]), use_one_hot)
  return {"cls_loss": loss, "cls_per_example": per_example,
          "cls_logits": logits, "cls_probabilities": probs}


def _squad_graph(config, inputs, use_one_hot):
  rs = _script("run_squad")
  start, end = rs.create_model(
      config, False, _const(inputs, "input_ids"), _const(inputs, "input_mask"),
      _const(inputs, "token_type_ids"), use_one_hot)
  return {"squad_start": start, "squad_end": end}


_GRAPHS = {"pretraining": _pretraining_graph, "classifier": _classifier_graph,
           "squad": _squad_graph}


def _run_load(case, config, inputs):
  results = {}
  for head in case.get("heads", ["pretraining"]):
    with tf.Graph().as_default():
      fetch = _GRAPHS[head](config, inputs, case.get("use_one_hot", False))
      tvars = tf.trainable_variables()
      assignment_map, initialized = modeling.get_assignment_map_from_checkpoint(
          tvars, case["ckpt"])
      tf.train.init_from_checkpoint(case["ckpt"], assignment_map)
      missing = [v.name for v in tvars if v.name not in initialized]
      if missing:
        raise SystemExit("%s: not in checkpoint: %s" % (head, missing))
      with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        results.update(sess.run(fetch))
  return results


def _run_save(case, config, inputs):
  with tf.Graph().as_default():
    tf.set_random_seed(case.get("seed", 1234))
    fetch = _pretraining_graph(config, inputs, case.get("use_one_hot", False))
    step = tf.train.get_or_create_global_step()
    table = [v for v in tf.trainable_variables()
             if v.name.startswith("bert/embeddings/word_embeddings")][0]
    tf.get_variable("bert/embeddings/word_embeddings/adam_m",
                    shape=table.shape, initializer=tf.ones_initializer(),
                    trainable=False)
    saver = tf.train.Saver()
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      sess.run(step.assign(17))
      saver.save(sess, case["ckpt_out"])
      return sess.run(fetch)


def main(spec_path):
  with open(spec_path) as f:
    cases = json.load(f)
  for case in cases:
    config = modeling.BertConfig.from_json_file(case["config"])
    inputs = dict(np.load(case["inputs"]))
    run = _run_save if case["kind"] == "save" else _run_load
    results = run(case, config, inputs)
    np.savez(case["out"], **{k: np.asarray(v) for k, v in results.items()})
    print("done", case["out"])


if __name__ == "__main__":
  main(sys.argv[1])
