"""A fine-tuning run that would train zero steps (issue 46 item 5).

`--train_batch_size` larger than the training set, or a tiny
`--num_train_epochs`, gave int(examples / batch * epochs) = 0 steps: the
scripts trained nothing, then evaluated and exported the untrained model,
exit 0. Now each script refuses it in one line before anything is written
(the original's formula unchanged; nothing is refused without --do_train).
"""

import importlib
import json
import os
import types

import pytest

from bert_tf2.common import InputError
from bert_tf2.finetune import checks
from tests.reliability import fixtures


def _common(p, out, **flags):
  values = dict(vocab_file=p["vocab"], bert_config_file=p["config"],
                output_dir=out, do_train="true", max_seq_length=16)
  values.update(flags)
  return values


def _write_data(directory):
  """train files of NER (2 sentences), multiple choice (1 example) and
  embeddings (2 pairs) in `directory`."""
  os.makedirs(directory, exist_ok=True)
  fixtures.write_text(os.path.join(directory, "train.txt"),
                      "the O\nkey B-ORG\n\nred B-PER\nday O\n")
  fixtures.write_text(os.path.join(directory, "train.jsonl"), json.dumps(
      {"context": "the key is red", "choices": ["good", "bad"],
       "label": 0}) + "\n")
  fixtures.write_text(os.path.join(directory, "pairs.jsonl"), "".join(
      json.dumps({"anchor": a, "positive": b}) + "\n"
      for a, b in (("the key", "red key"), ("a day", "good day"))))
  return directory


CASES = [
    ("run_classifier.py", "batch_larger_than_data",
     lambda p, d: dict(task_name="cola", data_dir=p["glue"],
                       train_batch_size=16, num_train_epochs=1.0),
     "8 training examples / --train_batch_size=16 x --num_train_epochs=1 "
     "gives 0 training steps"),
    ("run_classifier.py", "tiny_epochs",
     lambda p, d: dict(task_name="cola", data_dir=p["glue"],
                       train_batch_size=2, num_train_epochs=0.1),
     "8 training examples / --train_batch_size=2 x --num_train_epochs=0.1 "
     "gives 0 training steps"),
    # Windows are counted (8 short texts: 8 windows) before refusing.
    ("run_classifier.py", "sliding_window",
     lambda p, d: dict(task_name="cola", data_dir=p["glue"],
                       long_text="sliding_window", doc_stride=4,
                       train_batch_size=16, num_train_epochs=1.0),
     "8 training examples / --train_batch_size=16"),
    ("run_squad.py", "tiny_epochs",
     lambda p, d: dict(train_file=p["squad"], max_seq_length=32,
                       doc_stride=8, max_query_length=8, train_batch_size=2,
                       num_train_epochs=0.1),
     "4 training examples / --train_batch_size=2 x --num_train_epochs=0.1"),
    ("run_ner.py", "batch_larger_than_data",
     lambda p, d: dict(data_dir=d, train_batch_size=4, num_train_epochs=1.0,
                       doc_stride=8),
     "train.txt: 2 training examples / --train_batch_size=4"),
    ("run_multiple_choice.py", "one_example",
     lambda p, d: dict(data_dir=d, train_batch_size=2, num_train_epochs=1.0),
     "--train_file=%s: 1 training examples / --train_batch_size=2"),
    ("run_embedding.py", "batch_larger_than_data",
     lambda p, d: dict(data_dir=d, train_file="pairs.jsonl",
                       train_batch_size=4, num_train_epochs=1.0),
     "pairs.jsonl: 2 training examples / --train_batch_size=4"),
]


# Scripts whose main is driver.run(<Job>(settings)): run here through the
# driver (fixtures.run_in_process knows the other scripts' mains).
DRIVER_JOBS = {
    "run_multiple_choice.py": ("bert_tf2.multiple_choice.flags",
                               "bert_tf2.multiple_choice.job",
                               "MultipleChoiceJob"),
    "run_embedding.py": ("bert_tf2.embedding.flags", "bert_tf2.embedding.job",
                         "EmbeddingJob"),
}


def _driver_error(script, args):
  """"error: <message>" of driver.run on the script's job and flags."""
  from absl import flags  # pylint: disable=g-import-not-at-top
  from bert_tf2 import finetune  # pylint: disable=g-import-not-at-top
  from bert_tf2.finetune import driver  # pylint: disable=g-import-not-at-top
  flags_module, job_module, job_class = DRIVER_JOBS[script]
  values = flags.FlagValues()
  importlib.import_module(flags_module).define_flags(values)
  values([script] + list(args))
  job = getattr(importlib.import_module(job_module), job_class)
  with pytest.raises(InputError) as e:
    driver.run(job(finetune.Settings.from_flags(values)))
  return "error: %s" % e.value


@pytest.mark.parametrize("script,name,change,expected", CASES,
                         ids=["%s-%s" % (c[0][4:-3], c[1]) for c in CASES])
def test_zero_training_steps_is_refused_before_any_output(
    inputs, tmp_path, script, name, change, expected):
  del name
  data = _write_data(str(tmp_path / "data"))
  out = str(tmp_path / "out")
  args = fixtures.flag_args(**_common(inputs, out, **change(inputs, data)))
  if script in DRIVER_JOBS:
    line = _driver_error(script, args)
  else:
    line = fixtures.error_line(fixtures.run_in_process(script, args))
  if "%s" in expected:
    expected %= os.path.join(data, "train.jsonl")
  assert expected in line, line
  assert "lower --train_batch_size or raise --num_train_epochs" in line
  assert not os.path.exists(out), os.listdir(out)


def _settings(do_train=True, batch=32, epochs=3.0):
  return types.SimpleNamespace(do_train=do_train, train_batch_size=batch,
                               num_train_epochs=epochs)


def test_exact_count_is_asked_only_when_the_lower_bound_gives_no_step():
  asked = []
  exact = lambda: asked.append(1) or 40  # pylint: disable=g-long-lambda
  checks.check_train_steps(_settings(), "f", 11, exact)  # int(1.03) = 1.
  assert not asked
  checks.check_train_steps(_settings(), "f", 10, exact)  # 40 windows: 3.
  assert asked == [1]
  with pytest.raises(InputError, match="^f: 5 training examples"):
    checks.check_train_steps(_settings(), "f", 2, lambda: 5)


def test_nothing_is_refused_without_do_train():
  checks.check_train_steps(_settings(do_train=False), "f", 0)
