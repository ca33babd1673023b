"""Settings flow one way: the settings' trace through run_ner.py and
run_classifier.py.

The driver asks a job only for its declaration and its work: after
`prepare`, the task's model and record, each split's records, its
evaluation, predictions and its one server function (`JOB_INTERFACE`),
nothing else.

A tracer records, for every read of a `Settings` attribute, the project
file that reads it (its "room"); consecutive reads in one room are one
visit. Through run_ner.py (training with a CRF, evaluation, prediction and
export; then --do_predict on the finished run), and the same through
run_classifier.py, each room is visited at most
twice, and nothing reads the settings once the driver has read its plan
(`driver.read_plan`): records, training, evaluation, prediction and
export run on what was read (checked through run_squad.py too).
"""

import collections
import json
import os
import random
import sys

import pytest

from bert_tf2.finetune import driver
from bert_tf2.finetune import settings as settings_lib
from bert_tf2.ner import job as ner_job
from tests.ner import pipeline_test as ner_data
from tests.reliability import fixtures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


# What the driver (and the finished-run check) may ask of a job: the
# methods that do the task's work and the attributes `prepare` and the
# class declare (`bert_tf2.finetune.job.Job`).
JOB_METHODS = {"prepare", "build_task", "model_record", "metric_names",
               "record_spec", "input_options", "write_records", "evaluate",
               "predict"}
JOB_INTERFACE = JOB_METHODS | {
    "settings", "bert_config", "evaluates", "eval_batch_size",
    "examples_per_epoch", "assets", "record_files", "results_file",
    "shuffle_buffer", "task_metrics", "preprocessor_class", "server"}


class _AskedJob(object):
  """A job whose attributes the driver asks for are recorded (the job's
  own calls to itself are not: they reach the job, not this)."""

  def __init__(self, job, asked):
    object.__setattr__(self, "_job", job)
    object.__setattr__(self, "_asked", asked)

  def __getattr__(self, name):
    self._asked.append(name)
    return getattr(self._job, name)

  def __setattr__(self, name, value):
    setattr(self._job, name, value)


class _Tracer(object):
  """Reads of any Settings (the class patched), each as (room, field), and
  the number of reads when `driver.read_plan` returned."""

  def __init__(self, monkeypatch):
    self.reads = []
    self.plan_read_at = []
    self.asked = []
    original = settings_lib.Settings.__getattribute__
    reads = self.reads

    def traced(settings, name):
      if name in object.__getattribute__(settings, "__dict__"):
        path = sys._getframe(1).f_code.co_filename  # pylint: disable=protected-access
        if path.startswith(ROOT) and path != settings_lib.__file__:
          reads.append((os.path.relpath(path, ROOT), name))
      return original(settings, name)
    monkeypatch.setattr(settings_lib.Settings, "__getattribute__", traced)
    read_plan = driver.read_plan

    def marked(*args, **kwargs):
      plan = read_plan(*args, **kwargs)
      self.plan_read_at.append(len(self.reads))
      return plan
    monkeypatch.setattr(driver, "read_plan", marked)
    run = driver.run
    monkeypatch.setattr(driver, "run",
                        lambda job: run(_AskedJob(job, self.asked)))

  def visits(self):
    """The rooms in order, consecutive reads in one room as one visit."""
    rooms = []
    for room, _ in self.reads:
      if not rooms or rooms[-1] != room:
        rooms.append(room)
    return rooms


def _data(root):
  rng = random.Random(3)
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  for name, count, words in (("train", 40, 14), ("dev", 8, 14),
                             ("test", 5, 7)):
    ner_data._write(os.path.join(data_dir, name + ".txt"),  # pylint: disable=protected-access
                    [ner_data._sentence(rng, words) for _ in range(count)])  # pylint: disable=protected-access
  vocab_file = os.path.join(root, "vocab.txt")
  with open(vocab_file, "w") as f:
    f.write("\n".join(ner_data.VOCAB) + "\n")
  config_file = os.path.join(root, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(ner_data.CONFIG, f)
  return data_dir, vocab_file, config_file


def _run(tracer, script, *args):
  del tracer.reads[:], tracer.plan_read_at[:], tracer.asked[:]
  result = fixtures.run_in_process(script, list(args))
  assert result.returncode == 0, result.stderr
  return (tracer.visits(), tracer.reads[tracer.plan_read_at[0]:],
          list(tracer.asked))


def _ner_runs(root):
  data_dir, vocab_file, config_file = _data(root)
  out = os.path.join(root, "out")
  return "run_ner.py", [
      fixtures.flag_args(
          data_dir=data_dir, vocab_file=vocab_file,
          bert_config_file=config_file, output_dir=out, do_train="true",
          do_eval="true", do_predict="true", crf="true", max_seq_length=12,
          doc_stride=4, train_batch_size=8, num_train_epochs=1.0,
          export_dir=os.path.join(root, "export")),
      fixtures.flag_args(data_dir=data_dir, output_dir=out,
                         do_predict="true")]


def _classifier_runs(root):
  p = fixtures.make_inputs(root)
  out = os.path.join(root, "out")
  return "run_classifier.py", [
      fixtures.flag_args(
          task_name="cola", data_dir=p["glue"], vocab_file=p["vocab"],
          bert_config_file=p["config"], output_dir=out, do_train="true",
          do_eval="true", do_predict="true", max_seq_length=16,
          train_batch_size=2, num_train_epochs=1.0,
          export_dir=os.path.join(root, "export")),
      fixtures.flag_args(data_dir=p["glue"], output_dir=out,
                         do_predict="true")]


def _squad_runs(root):
  p = fixtures.make_inputs(root)
  out = os.path.join(root, "out")
  return "run_squad.py", [
      fixtures.flag_args(
          train_file=p["squad"], predict_file=p["squad"],
          vocab_file=p["vocab"], bert_config_file=p["config"],
          output_dir=out, do_train="true", do_predict="true",
          max_seq_length=24, doc_stride=8, max_query_length=8,
          train_batch_size=2, num_train_epochs=1.0,
          eval_every_n_steps=2, export_dir=os.path.join(root, "export")),
      fixtures.flag_args(predict_file=p["squad"], output_dir=out,
                         do_predict="true")]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
  """{(script, "trained" or "continued"): (visits, reads after the plan,
  what the driver asked of the job)}."""
  found = {}
  with pytest.MonkeyPatch.context() as monkeypatch:
    tracer = _Tracer(monkeypatch)
    for runs in (_ner_runs, _classifier_runs, _squad_runs):
      script, (trained, continued) = runs(
          str(tmp_path_factory.mktemp("trace")))
      found[script, "trained"] = _run(tracer, script, *trained)
      found[script, "continued"] = _run(tracer, script, *continued)
  return found


RUNS = [(script, run) for script in ("run_ner.py", "run_classifier.py")
        for run in ("trained", "continued")]


@pytest.mark.parametrize("script,run", RUNS)
def test_each_room_is_visited_at_most_twice(traces, script, run):
  visits, _, _ = traces[script, run]
  counts = collections.Counter(visits)
  # The rooms the settings must pass (a tracer that misses reads fails).
  task = "bert_tf2/%s/job.py" % script[len("run_"):-len(".py")]
  assert {task, "bert_tf2/finetune/driver.py",
          "bert_tf2/finetune/checks.py"} <= set(counts), visits
  assert max(counts.values()) <= 2, visits


@pytest.mark.parametrize("script,run", RUNS + [
    ("run_squad.py", "trained"), ("run_squad.py", "continued")])
def test_nothing_reads_the_settings_after_the_plan(traces, script, run):
  _, late, _ = traces[script, run]
  assert late == []


@pytest.mark.parametrize("script,run", RUNS)
def test_the_driver_asks_the_job_its_declaration_and_work(traces, script,
                                                          run):
  _, _, asked = traces[script, run]
  calls = [name for name in asked if name in JOB_METHODS]
  assert calls[0] == "prepare" and calls.count("prepare") == 1, calls
  assert set(asked) <= JOB_INTERFACE, sorted(set(asked) - JOB_INTERFACE)
  # The run trains, evaluates, predicts and exports: every step is asked.
  if run == "trained":
    assert (JOB_METHODS - {"metric_names"}) | {"server"} <= set(asked), asked


def test_the_tracer_sees_a_job_that_reads_late(tmp_path, monkeypatch):
  """Control: a NER job whose prediction reads --output_dir again is
  seen reading after the plan, from its own room."""

  class LateJob(ner_job.NerJob):

    def predict(self, estimator, input_fn):
      self.output_dir = self.settings.output_dir
      super().predict(estimator, input_fn)

  data_dir, vocab_file, config_file = _data(str(tmp_path))
  tracer = _Tracer(monkeypatch)
  monkeypatch.setattr(ner_job, "NerJob", LateJob)
  _, late, _ = _run(tracer, "run_ner.py", *fixtures.flag_args(
      data_dir=data_dir, vocab_file=vocab_file, bert_config_file=config_file,
      output_dir=str(tmp_path / "out"), do_predict="true",
      max_seq_length=12, doc_stride=4))
  assert late == [("tests/finetune/settings_trace_test.py", "output_dir")]
