"""--classifier_dropout_prob: the heads' dropout of run_classifier.py and
run_ner.py (default 0.1, the original's hard-coded rate; 0 turns it off)."""

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier import options as classifier_options
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import InputError
from bert_tf2.ner import job as ner_job
from bert_tf2.ner import flags as ner_flags
from bert_tf2.ner.model import BertTokenClassifier

# Dropout off in the encoder: only the head's can change a training call.
CONFIG = modeling.BertConfig(
    vocab_size=30, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=64, hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0)


def _features():
  ids = tf.constant(np.arange(2 * 6).reshape(2, 6) % 30, tf.int32)
  return {"input_ids": ids, "input_mask": tf.ones_like(ids),
          "segment_ids": tf.zeros_like(ids)}


@pytest.mark.parametrize("build", [
    lambda **kw: BertClassifier(CONFIG, 3, **kw),
    lambda **kw: BertTokenClassifier(CONFIG, 3, **kw),
], ids=["classifier", "ner"])
def test_zero_turns_the_head_dropout_off(build):
  features = _features()
  model = build(classifier_dropout_prob=0.0)
  inference = model(features, training=False)
  np.testing.assert_allclose(model(features, training=True), inference,
                             rtol=1e-6, atol=1e-6)
  assert model.get_config()["classifier_dropout_prob"] == 0.0

  default = build()  # The original's 10%: training draws masks.
  assert default.get_config()["classifier_dropout_prob"] == pytest.approx(0.1)
  assert not np.allclose(default(features, training=True),
                         default(features, training=False), atol=1e-6)


def test_models_take_the_rate():
  assert BertClassifier(CONFIG, 2, classifier_dropout_prob=0.0
                        ).classifier.dropout is None
  head = BertTokenClassifier(CONFIG, 2, classifier_dropout_prob=0.3
                             ).classifier
  assert head.dropout_prob == pytest.approx(0.3)


def test_flag_defaults_to_the_original_rate():
  assert classifier_options.default_options().classifier_dropout_prob == 0.1
  assert ner_flags.default_options().classifier_dropout_prob == 0.1


@pytest.mark.parametrize("value", [-0.1, 1.0])
def test_rate_outside_0_1_is_a_named_error(tmp_path, value):
  match = r"^--classifier_dropout_prob=%s: must be in \[0, 1\)$" % value
  with pytest.raises(InputError, match=match):
    classifier_options.validate(classifier_options.default_options(
        task_name="cola", data_dir=str(tmp_path), output_dir=str(tmp_path),
        do_train=True, classifier_dropout_prob=value))
  with pytest.raises(InputError, match=match):
    ner_job.validate(ner_flags.default_options(
        data_dir=str(tmp_path), output_dir=str(tmp_path), do_train=True,
        classifier_dropout_prob=value))
