"""Flags never lie: `finetune.Settings` records reads; flags that cannot act
are refused.

The runs of every script that must read every flag are in
tests/scripts_flags_read_test.py (run_ner's pipeline also in
tests/ner/periodic_eval_test.py, run_squad's in tests/squad/train_test.py).
"""

import os
import subprocess

import pytest

from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2.finetune import Settings
from bert_tf2.finetune import settings_with_defaults
from tests import warm_python


def test_settings_record_reads():
  s = Settings(a=1, b=2)
  assert s.unread() == {"a", "b"}
  assert s.a == 1 and s.replace(b=3).b == 3
  assert s.unread() == set()
  assert vars(s) == {"a": 1, "b": 2}


def test_defaults_come_from_the_flag_definitions():
  from bert_tf2.classifier import flags as classifier_flags  # pylint: disable=g-import-not-at-top
  s = settings_with_defaults(classifier_flags.define_flags)
  assert s == default_options()
  assert (s.max_seq_length, s.learning_rate, s.trim_padding) == (128, 5e-5,
                                                                 True)


_REQUIRED = {"run_pretraining": ["--input_file=x.tfrecord",
                                 "--bert_config_file=x.json"],
             "convert_hf_checkpoint": ["--hf_dir=x"],
             "analyze_position_embeddings": ["--init_checkpoint=x"]}


@pytest.mark.parametrize("script", sorted(_REQUIRED))
def test_scripts_that_never_tokenize_refuse_preserve_unused_tokens(
    script, tmp_path):
  # They import `tokenization` (its errors and atomic writers), which defines
  # the original's --preserve_unused_tokens; it would act nowhere there.
  repo = os.path.dirname(os.path.dirname(os.path.dirname(
      os.path.abspath(__file__))))
  result = subprocess.run(
      [warm_python.command(), os.path.join(repo, script + ".py"),
       "--preserve_unused_tokens=true", "--output_dir=%s" % tmp_path]
      + _REQUIRED[script], capture_output=True, text=True, cwd=repo,
      check=False)
  assert result.returncode == 1, result.stderr[-2000:]
  assert ("error: --preserve_unused_tokens: %s.py does not tokenize" % script
          in result.stderr), result.stderr[-2000:]
