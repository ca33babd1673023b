"""The shared up-front checks of the fine-tuning jobs (finetune/checks.py)."""

import pytest

from bert_tf2.common import InputError
from bert_tf2.finetune import checks
from bert_tf2.ner import flags as ner_flags


def _settings(tmp_path, **overrides):
  values = dict(data_dir=str(tmp_path), output_dir=str(tmp_path / "out"),
                do_train=True)
  values.update(overrides)
  return ner_flags.default_options(**values)


@pytest.mark.parametrize("overrides, message", [
    (dict(do_train=False), "At least one of --do_train, --do_eval, "
     "--do_predict or --export_dir must be set"),
    (dict(output_dir=None), "--output_dir is required"),
    (dict(data_dir="/nonexistent"), "--data_dir=/nonexistent: not a "
     "directory"),
    (dict(max_seq_length=3), "--max_seq_length=3: must be at least 4"),
    (dict(classifier_dropout_prob=1.0), "--classifier_dropout_prob=1.0: "
     "must be in [0, 1)"),
    (dict(eval_batch_size=0), "--eval_batch_size=0: must be >= 1"),
])
def test_each_shared_check_names_its_flag(tmp_path, overrides, message):
  with pytest.raises(InputError) as e:
    checks.check_settings(_settings(tmp_path, **overrides), min_seq_length=4)
  assert str(e.value) == message


def test_export_alone_is_a_run_unless_the_task_says_otherwise(tmp_path):
  s = _settings(tmp_path, do_train=False, export_dir=str(tmp_path / "e"))
  checks.check_settings(s)  # NER, multiple choice, embeddings.
  with pytest.raises(InputError, match="or --do_predict must be True"):
    checks.check_settings(s, export_acts=False)  # run_classifier.py


def test_good_settings_pass(tmp_path):
  checks.check_settings(_settings(tmp_path), min_seq_length=4)
