"""Flags never lie: a script run that uses every feature reads every flag.

`finetune.Settings` records which settings were read; a run of
run_classifier's pipeline with training, periodic evaluation, early
stopping, the best checkpoint, prediction and export must read every flag
the script defines (a flag defined and never read is wired to nothing).
run_ner's equivalent is in tests/ner/periodic_eval_test.py.
"""

import pytest
import os
import subprocess
import sys
from bert_tf2.classifier import pipeline
from bert_tf2.finetune import Settings
from bert_tf2.finetune import settings_with_defaults
from tests.reliability import fixtures

ROWS = ["label\ttext", "pos\tgood fun", "neg\tmeh", "pos\tfun fun",
        "neg\tmeh meh"]


def test_settings_record_reads():
  s = Settings(a=1, b=2)
  assert s.unread() == {"a", "b"}
  assert s.a == 1 and s.replace(b=3).b == 3
  assert s.unread() == set()
  assert vars(s) == {"a": 1, "b": 2}


def test_defaults_come_from_the_flag_definitions():
  from bert_tf2.classifier import flags as classifier_flags  # pylint: disable=g-import-not-at-top
  s = settings_with_defaults(classifier_flags.define_flags)
  assert s == pipeline.default_options()
  assert (s.max_seq_length, s.learning_rate, s.trim_padding) == (128, 5e-5,
                                                                 True)


def test_run_classifier_reads_every_flag(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  for name in ("train", "dev", "test"):
    (data / (name + ".tsv")).write_text("\n".join(ROWS) + "\n")
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  o = pipeline.default_options(
      task_name="TSV", data_dir=str(data), vocab_file=vocab,
      bert_config_file=config, output_dir=str(tmp_path / "out"),
      do_train=True, do_eval=True, do_predict=True, text_a_column="text",
      label_column="label", label_list="neg,pos", max_seq_length=8,
      train_batch_size=2, eval_batch_size=2, num_train_epochs=1,
      eval_every_n_steps=1, early_stopping_metric="eval_loss",
      keep_best_checkpoint=True, export_dir=str(tmp_path / "export"))
  pipeline.run(o)
  assert sorted(o.unread()) == []



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
      [sys.executable, os.path.join(repo, script + ".py"),
       "--preserve_unused_tokens=true", "--output_dir=%s" % tmp_path]
      + _REQUIRED[script], capture_output=True, text=True, cwd=repo,
      check=False)
  assert result.returncode == 1, result.stderr[-2000:]
  assert ("error: --preserve_unused_tokens: %s.py does not tokenize" % script
          in result.stderr), result.stderr[-2000:]
