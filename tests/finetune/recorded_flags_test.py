"""`finetune.recorded_flags`: a finished run's flags read back.

On a record written by `artifact.write` (the driver's writer): the flags not
given come from the record, the given ones stay, config and vocabulary are
the run's copies, and each refusal is one line naming model.json or the
flag. End to end (every script with --do_predict --output_dir alone):
tests/*/cross_path_test.py.
"""

import json
import os

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.finetune import recorded_flags
from bert_tf2.finetune.settings import Settings

FLAGS = dict(data_dir="/data/train", max_seq_length=32, label_list="a,b",
             predict_batch_size=8, do_lower_case=True)


def _settings(given=(), **values):
  base = dict(FLAGS, output_dir=None, do_train=False, do_predict=True,
              bert_config_file=None, vocab_file=None, init_checkpoint=None)
  base.update(values)
  return Settings(given=set(given) | {"output_dir", "do_predict"}, **base)


@pytest.fixture
def run(tmp_path):
  source = tmp_path / "source"
  source.mkdir()
  (source / "bert_config.json").write_text(json.dumps(dict(
      vocab_size=3, hidden_size=8, num_hidden_layers=1,
      num_attention_heads=2, intermediate_size=16,
      max_position_embeddings=64)))
  (source / "vocab.txt").write_text("[PAD]\n[UNK]\na\n")
  out = str(tmp_path / "run")
  artifact.write(out, "classifier", str(source / "bert_config.json"),
                 str(source / "vocab.txt"),
                 preprocessor=dict(max_seq_length=32),
                 outputs=dict(labels=["a", "b"]), flags=FLAGS)
  return out, source


def test_recordable_leaves_out_the_flags_of_one_invocation():
  s = _settings(output_dir="/x", export_dir="/e", use_tpu=False,
                bad=object())
  assert recordable_names(s) == sorted(FLAGS)


def recordable_names(settings):
  return sorted(recorded_flags.recordable(settings))


def test_flags_not_given_come_from_the_record(run):
  out, _ = run
  s = recorded_flags.fill(_settings(
      output_dir=out, data_dir=None, max_seq_length=128, label_list=None,
      predict_batch_size=3, given={"predict_batch_size"}))
  assert (s.data_dir, s.max_seq_length, s.label_list) == (
      "/data/train", 32, "a,b")
  assert s.predict_batch_size == 3  # Given: kept.
  assert s.bert_config_file == os.path.join(out, "bert_config.json")
  assert s.vocab_file == os.path.join(out, "vocab.txt")


def test_a_training_run_or_a_directory_without_record_is_unchanged(run,
                                                                   tmp_path):
  out, _ = run
  s = _settings(output_dir=out, do_train=True, max_seq_length=128)
  assert recorded_flags.fill(s) is s
  s = _settings(output_dir=str(tmp_path / "empty"), max_seq_length=128)
  assert recorded_flags.fill(s) is s


def test_the_runs_own_vocabulary_given_is_accepted_another_refused(run,
                                                                   tmp_path):
  out, source = run
  s = recorded_flags.fill(_settings(output_dir=out,
                                    vocab_file=str(source / "vocab.txt"),
                                    given={"vocab_file"}))
  assert s.vocab_file == os.path.join(out, "vocab.txt")
  other = tmp_path / "other_vocab.txt"
  other.write_text("[PAD]\n[UNK]\nb\n")
  with pytest.raises(InputError) as e:
    recorded_flags.fill(_settings(output_dir=out, vocab_file=str(other),
                                  given={"vocab_file"}))
  assert str(e.value) == (
      "--vocab_file=%s is not the file the run in %s was trained with (its "
      "copy: %s/vocab.txt); leave the flag out to use it" % (other, out, out))


def test_a_recorded_flag_this_script_lacks_is_one_line(run):
  out, _ = run
  s = _settings(output_dir=out)
  del s.label_list  # Another script: no --label_list.
  with pytest.raises(InputError, match=r"model.json: \"flags\" records "
                     r"'label_list', which is not a flag of this script"):
    recorded_flags.fill(s)


def test_required_flags_neither_given_nor_recorded_are_one_line():
  with pytest.raises(InputError, match=r"^--data_dir is required \(or "
                     "--output_dir of a finished run whose model.json "
                     "records it\\)$"):
    recorded_flags.check_required(_settings(data_dir=None), ["data_dir"])
  recorded_flags.check_required(_settings(), ["data_dir"])


def _check(job):
  recorded_flags.check_model_record(
      job, recorded_flags.finished_run(job.settings), job.model_record())


class _Job(object):
  """A job whose record holds max_seq_length (not the batch size)."""

  def __init__(self, settings):
    self.settings = settings

  def model_record(self):
    return {"task": "classifier",
            "preprocessor": dict(max_seq_length=self.settings.max_seq_length),
            "outputs": dict(labels=["a", "b"])}


def test_a_given_flag_that_builds_another_model_is_named(run):
  out, _ = run
  s = recorded_flags.fill(_settings(output_dir=out, max_seq_length=64,
                                    predict_batch_size=3,
                                    given={"max_seq_length",
                                           "predict_batch_size"}))
  with pytest.raises(InputError) as e:
    _check(_Job(s))
  assert str(e.value) == (
      "%s/model.json records --max_seq_length=32; given --max_seq_length=64,"
      " which builds another model than the run's: leave it out, or train a"
      " new run" % out)
  # The batch size alone leaves the model as recorded.
  s = recorded_flags.fill(_settings(output_dir=out, predict_batch_size=3,
                                    given={"predict_batch_size"}))
  _check(_Job(s))


def test_flags_that_do_not_rebuild_the_record_are_a_damaged_record(run):
  out, _ = run
  s = recorded_flags.fill(_settings(output_dir=out))
  job = _Job(s)
  job.model_record = lambda: {"task": "classifier",
                              "preprocessor": dict(max_seq_length=16)}
  with pytest.raises(InputError, match=r"model.json is damaged: its "
                     "\"flags\" do not rebuild its preprocessor and outputs"):
    _check(job)
