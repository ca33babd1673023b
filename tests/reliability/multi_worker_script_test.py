"""The real scripts under --strategy=multi_worker: two workers on localhost.

Each worker is `python run_X.py ... --strategy=multi_worker` with its own
TF_CONFIG (a cluster of two 127.0.0.1 ports), as a user starts them. For
run_pretraining.py, run_classifier.py, run_squad.py and run_ner.py the
two-worker job must end on the weights, Adam slots and global_step of one
process with the same global batch; a SIGTERM to one worker stops both at
the same step and restarting both resumes there; evaluation and prediction
report every example, not one worker's shard. Bad distribution input
(TF_CONFIG missing or malformed, a peer that never comes, a TPU that cannot
be found) is one `error:` line, exit status 1, nothing written.
"""

import json
import os
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.common import launch_local
from bert_tf2.ner.model import BertTokenClassifier
from bert_tf2.squad.model import SquadModel
from tests.golden import REPO_ROOT
from tests import warm_python
from tests.reliability import fixtures

TIMEOUT = 240  # Per wait on a worker; processes are killed after it.


@pytest.fixture(scope="module")
def python():
  """The `python` every script process here is started with: each is a
  fresh program forked from one process that imported TensorFlow once
  (tests/warm_python.py; the 17 processes of this file each paid it)."""
  return warm_python.command()


@pytest.fixture(scope="module")
def no_dropout(inputs, tmp_path_factory):
  """bert_config.json without dropout: replicas draw different masks."""
  d = tmp_path_factory.mktemp("multi_worker_config")
  return fixtures.write_json(d / "bert_config.json", fixtures.config_dict(
      hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))


@pytest.fixture(scope="module")
def full_records(inputs, tmp_path_factory):
  """Pretraining records whose every example has MAX_PRED weighted masked
  positions: the masked-LM loss is normalized per replica (as the
  original's per TPU core), which equals the global batch's normalization
  only when every replica has as many weighted predictions."""
  from tests.pretraining import records  # pylint: disable=g-import-not-at-top
  path = str(tmp_path_factory.mktemp("multi_worker_records") / "full.tfr")

  def fill(index, instance):
    del index
    instance["masked_lm_weights"] = [1.0] * fixtures.MAX_PRED
  records.write_records(path, 16, seq_length=fixtures.SEQ,
                        max_pred=fixtures.MAX_PRED,
                        vocab_size=len(fixtures.VOCAB), edit=fill)
  return dict(inputs, records=path)


def _pretraining_args(p, config, out, steps, **extra):
  flags = dict(input_file=p["records"], bert_config_file=config,
               output_dir=out, do_train="true", max_seq_length=fixtures.SEQ,
               max_predictions_per_seq=fixtures.MAX_PRED, train_batch_size=4,
               eval_batch_size=4, num_train_steps=steps, num_warmup_steps=2,
               save_checkpoints_steps=3, iterations_per_loop=1000,
               learning_rate=1e-2, deterministic_input="true",
               skip_consumed_batches="true", keep_checkpoint_max=3)
  flags.update(extra)
  return fixtures.flag_args(**flags)


def _env(tf_config=None):
  env = fixtures.script_env()
  env.pop("TF_CONFIG", None)
  if tf_config is not None:
    env["TF_CONFIG"] = tf_config
  return env


# Runs a script with every checkpoint save delayed by argv[1] seconds: the
# chief then writes its last checkpoint well after the other workers have
# finished training (a slow or loaded file system), which they must wait for.
_SLOW_SAVES = """
import runpy, sys, time
from bert_tf2.runner import checkpoints
delay, save = float(sys.argv.pop(1)), checkpoints.save
def slow_save(*args, **kwargs):
  time.sleep(delay)
  return save(*args, **kwargs)
checkpoints.save = slow_save
sys.argv[0] = sys.argv[1]; del sys.argv[1]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def _start(python, script, args, tf_config=None, slow_saves=0):
  command = [python, os.path.join(REPO_ROOT, script)]
  if slow_saves:
    command[1:1] = ["-c", _SLOW_SAVES, str(slow_saves)]
  return subprocess.Popen(
      command + list(args), cwd=REPO_ROOT, env=_env(tf_config),
      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _start_workers(python, script, args, num_workers=2, slow_saves=0):
  configs = launch_local.tf_configs(num_workers)
  return [_start(python, script, args + ["--strategy=multi_worker",
                                 "--worker_timeout_secs=120"], json.dumps(c),
                 slow_saves)
          for c in configs]


def _start_one_process(python, script, args):
  """The reference: one process, one replica. It runs under a one-worker
  TF_CONFIG so that it reads the training data in the order every worker
  of a multi-worker job reads (their shuffles are seeded:
  runner.data_seed); the batch it computes is the whole global batch."""
  config = launch_local.tf_configs(1)[0]
  return _start(python, script, args + ["--strategy=multi_worker",
                                "--worker_timeout_secs=120"],
                json.dumps(config))


def _task_checkpoint(model, prefix):
  """Writes every variable of a fine-tuning `model` (encoder AND head):
  both runs start from these weights (a head initialized at random would
  differ between processes). Returns the prefix."""
  ids = np.ones([1, 4], np.int32)
  model({"input_ids": ids, "input_mask": ids, "segment_ids": 0 * ids})
  return modeling.write_checkpoint(modeling.original_variable_names(model),
                                   str(prefix))


def _train_both(python, script, args, step, slow_saves=0):
  """Two workers and the one-process reference, each with `args` and its
  own output dir; asserts both end at `step` with the same weights, Adam
  slots and global_step. Returns (two-worker dir, reference dir).
  slow_saves: the workers' checkpoint saves take this many seconds more."""
  shared, single = args("shared"), args("single")
  procs = _start_workers(python, script, shared, slow_saves=slow_saves) + [
      _start_one_process(python, script, single)]
  codes, errors = _finish(procs)  # All three at once: less wall time.
  assert codes == [0, 0, 0], "\n".join(e[-3000:] for e in errors)
  out = [a[len("--output_dir="):] for a in shared + single
         if a.startswith("--output_dir=")]
  ours, reference = _checkpoint(out[0], step), _checkpoint(out[1], step)
  assert int(ours["global_step"]) == step
  _assert_same_checkpoint(ours, reference)
  for name in reference:  # Gradients reached every variable but the
    # pooler (the span and tagging heads do not use it).
    if name.endswith("/adam_v") and "/pooler/" not in name:
      assert np.any(ours[name] > 0), name
  return out


def _finish(procs, timeout=TIMEOUT):
  return fixtures.finish(procs, timeout)


def _checkpoint(out, step):
  prefix = tf.train.latest_checkpoint(out)
  assert prefix and prefix.endswith("model.ckpt-%d" % step), prefix
  reader = tf.train.load_checkpoint(prefix)
  return {n: reader.get_tensor(n) for n in reader.get_variable_to_shape_map()}


def _assert_same_checkpoint(ours, reference):
  assert sorted(ours) == sorted(reference)
  assert any(n.endswith("/adam_v") for n in ours)
  for name in reference:
    # Float32 all-reduce sums in another order than one device's batch.
    # Weights: 2e-6 absolute slack (some are pure round-off: the attention
    # key bias, SQuAD's output bias and last LayerNorm beta have gradient 0
    # in exact arithmetic). Adam slots: slack scaled to the tensor, as its
    # second moments are ~1e-6 where 2e-6 would let any value pass. The
    # floor is round-off of a zero gradient (SQuAD's output bias: first
    # moments ~1e-9 of either sign; second moments ~1e-18).
    atol = 2e-6
    if name.endswith(("/adam_m", "/adam_v")):
      scale = float(np.max(np.abs(reference[name]), initial=0.0))
      floor = 1e-8 if name.endswith("/adam_m") else 1e-12
      atol = max(floor, min(atol, 1e-3 * scale))
    np.testing.assert_allclose(ours[name], reference[name], rtol=2e-4,
                               atol=atol, err_msg=name)


def _eval_results(path):
  with open(path) as f:
    return dict(line.strip().split(" = ") for line in f if " = " in line)


def _checkpoint_steps(out):
  if not os.path.isdir(out):
    return []
  return sorted(int(n[len("model.ckpt-"):-len(".index")])
                for n in os.listdir(out)
                if n.startswith("model.ckpt-") and n.endswith(".index")
                and ".tmp-" not in n)


@pytest.mark.slow
def test_pretraining_sigterm_to_one_worker_then_restart_equals_one_process(
    full_records, no_dropout, tmp_path, python):
  """SIGTERM to worker 1 stops both workers at the same step (status 143,
  the chief saves it); restarting both resumes there, and they end with the
  weights, Adam slots, global_step and eval results of one process resuming
  from the same checkpoint with the same global batch."""
  inputs = full_records
  shared = str(tmp_path / "shared")
  procs = _start_workers(python, "run_pretraining.py", _pretraining_args(
      inputs, no_dropout, shared, 100000))
  try:
    deadline = time.time() + TIMEOUT
    while not _checkpoint_steps(shared):  # Training is under way.
      for proc in procs:
        assert proc.poll() is None, proc.communicate()[1][-3000:]
      assert time.time() < deadline, "no checkpoint written"
      time.sleep(0.2)
    procs[1].send_signal(signal.SIGTERM)  # Not the chief.
  finally:
    codes, errors = _finish(procs)
  assert codes == [143, 143], errors[0][-3000:] + errors[1][-3000:]
  assert "Traceback" not in errors[0] + errors[1]
  stopped = _checkpoint_steps(shared)[-1]
  assert 3 <= stopped < 100000
  assert int(_checkpoint(shared, stopped)["global_step"]) == stopped

  # One process resuming from a copy of that checkpoint is the reference
  # (the learning-rate schedule depends on --num_train_steps, which the
  # rerun changes).
  single = str(tmp_path / "single")
  os.makedirs(single)
  for name in os.listdir(shared):
    if name.startswith(("model.ckpt-%d." % stopped, "checkpoint")):
      shutil.copy(os.path.join(shared, name), single)

  evaluation = dict(do_eval="true", max_eval_steps=2)
  # The same command lines, two more steps: both workers resume at
  # `stopped` and end where one process resuming there ends.
  codes, errors = _finish(_start_workers(python, "run_pretraining.py",
                                         _pretraining_args(
                                             inputs, no_dropout, shared,
                                             stopped + 2, **evaluation)))
  assert codes == [0, 0], errors[0][-3000:] + errors[1][-3000:]
  for err in errors:
    assert "Resuming from %s" % os.path.join(
        shared, "model.ckpt-%d" % stopped) in err
  codes, errors = _finish([_start(python, "run_pretraining.py",
                                  _pretraining_args(inputs, no_dropout,
                                                    single, stopped + 2,
                                                    **evaluation))])
  assert codes == [0], errors[0][-3000:]
  ours = _checkpoint(shared, stopped + 2)
  assert int(ours["global_step"]) == stopped + 2
  _assert_same_checkpoint(ours, _checkpoint(single, stopped + 2))
  # Evaluation covered the same 2 global batches as one process.
  got = _eval_results(os.path.join(shared, "eval_results.txt"))
  want = _eval_results(os.path.join(single, "eval_results.txt"))
  assert sorted(got) == sorted(want)
  for key in want:
    np.testing.assert_allclose(float(got[key]), float(want[key]), rtol=1e-4,
                               err_msg=key)


@pytest.fixture(scope="module")
def tagging_data(tmp_path_factory):
  """CoNLL train/dev/test files of 8 four-word sentences, one word piece
  per word: every replica's batch has as many tagged pieces (the NER loss,
  as the masked-LM loss, is normalized per replica)."""
  d = tmp_path_factory.mktemp("multi_worker_ner")
  words = ["the", "key", "is", "red", "a", "film", "was", "good", "blue",
           "day", "green", "story"]
  colors = ("red", "green", "blue")
  lines = []
  for i in range(8):
    for j in range(4):
      word = words[(3 * i + 5 * j) % len(words)]
      lines.append("%s %s" % (word, "B-COL" if word in colors else "O"))
    lines.append("")
  for name in ("train.txt", "dev.txt", "test.txt"):
    fixtures.write_text(d / name, "\n".join(lines) + "\n")
  return str(d)


@pytest.mark.slow
def test_classifier_two_workers_like_one_process(inputs, no_dropout,
                                                 tmp_path, python):
  """run_classifier.py --classifier_dropout_prob=0 on 2 workers (global
  batch 4: 2 per worker) ends on the weights, Adam slots and global_step of
  one process with batch 4; its eval_results.txt and test_results.tsv
  (gathered on the chief) hold every dev/test example, in order, as the
  one process's."""
  init = _task_checkpoint(BertClassifier(
      modeling.BertConfig.from_json_file(no_dropout), 2),
                          tmp_path / "init" / "model.ckpt")

  def args(out):
    return ["--task_name=cola", "--data_dir=" + inputs["glue"],
            "--vocab_file=" + inputs["vocab"],
            "--bert_config_file=" + no_dropout, "--init_checkpoint=" + init,
            "--output_dir=" + str(tmp_path / out), "--do_train=true",
            "--do_eval=true", "--do_predict=true", "--max_seq_length=16",
            "--train_batch_size=4", "--eval_batch_size=2",
            "--predict_batch_size=2", "--num_train_epochs=2",
            "--learning_rate=1e-3", "--save_checkpoints_steps=100",
            "--classifier_dropout_prob=0"]
  # 8 examples / batch 4 x 2 epochs = 4 steps.
  shared, single = _train_both(python, "run_classifier.py", args, 4)
  got = _eval_results(os.path.join(shared, "eval_results.txt"))
  want = _eval_results(os.path.join(single, "eval_results.txt"))
  assert got["global_step"] == want["global_step"] == "4"
  for key in ("eval_accuracy", "eval_loss"):
    np.testing.assert_allclose(float(got[key]), float(want[key]), rtol=1e-4)
  got = np.loadtxt(os.path.join(shared, "test_results.tsv"))
  want = np.loadtxt(os.path.join(single, "test_results.tsv"))
  assert got.shape == want.shape == (8, 2)
  np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_squad_two_workers_like_one_process(inputs, no_dropout, tmp_path,
                                           python):
  """run_squad.py on 2 workers: the checkpoint of one process with the
  same global batch, and the same predictions.json / nbest (every
  question, predicted on the chief from all workers' gathered logits)."""
  init = _task_checkpoint(SquadModel(modeling.BertConfig.from_json_file(
      no_dropout)), tmp_path / "init" / "model.ckpt")

  def args(out):
    return ["--train_file=" + inputs["squad"],
            "--predict_file=" + inputs["squad"],
            "--vocab_file=" + inputs["vocab"],
            "--bert_config_file=" + no_dropout, "--init_checkpoint=" + init,
            "--output_dir=" + str(tmp_path / out), "--do_train=true",
            "--do_predict=true", "--max_seq_length=32", "--doc_stride=8",
            "--max_query_length=8", "--train_batch_size=4",
            "--predict_batch_size=2", "--num_train_epochs=3",
            "--learning_rate=1e-3", "--save_checkpoints_steps=100",
            "--n_best_size=3"]
  # 4 questions / batch 4 x 3 epochs = 3 steps.
  shared, single = _train_both(python, "run_squad.py", args, 3)
  with open(os.path.join(shared, "predictions.json")) as f:
    got = json.load(f)
  with open(os.path.join(single, "predictions.json")) as f:
    want = json.load(f)
  assert sorted(got) == ["q0", "q1", "q2", "q3"]
  assert got == want
  with open(os.path.join(shared, "nbest_predictions.json")) as f:
    got = json.load(f)
  with open(os.path.join(single, "nbest_predictions.json")) as f:
    want = json.load(f)
  assert sorted(got) == sorted(want)
  for qid in want:
    assert [e["text"] for e in got[qid]] == [e["text"] for e in want[qid]]
    np.testing.assert_allclose([e["probability"] for e in got[qid]],
                               [e["probability"] for e in want[qid]],
                               rtol=1e-4, err_msg=qid)


@pytest.mark.slow
@pytest.mark.parametrize("crf", [False, True], ids=["softmax", "crf"])
def test_ner_two_workers_like_one_process(inputs, no_dropout, tagging_data,
                                          tmp_path, crf, python):
  """run_ner.py --classifier_dropout_prob=0 on 2 workers: the checkpoint
  of one process with the same global batch, and the same dev/test
  results and tagged files (every sentence, gathered on the chief); with
  --crf too (its loss is a mean over windows, and each replica has as
  many, so the replicas' mean is the one process's).
  The chief's saves are slowed down: the other worker must not evaluate or
  predict before the chief has written the last checkpoint (it did, with
  the initial weights, and its rows of the gathered results were wrong)."""
  init = _task_checkpoint(BertTokenClassifier(
      modeling.BertConfig.from_json_file(no_dropout), 2),  # O, B-COL.
                          tmp_path / "init" / "model.ckpt")

  def args(out):
    return ["--crf=%s" % str(crf).lower(), "--data_dir=" + tagging_data, "--vocab_file=" + inputs["vocab"],
            "--bert_config_file=" + no_dropout, "--init_checkpoint=" + init,
            "--output_dir=" + str(tmp_path / out), "--do_train=true",
            "--do_eval=true", "--do_predict=true", "--max_seq_length=8",
            "--doc_stride=4", "--train_batch_size=4", "--eval_batch_size=2",
            "--predict_batch_size=2", "--num_train_epochs=2",
            "--learning_rate=1e-2", "--save_checkpoints_steps=100",
            "--classifier_dropout_prob=0"]
  # 8 sentences (one window each) / batch 4 x 2 epochs = 4 steps.
  shared, single = _train_both(python, "run_ner.py", args, 4, slow_saves=4)
  for name in ("eval_results.txt", "test_results.txt"):
    got = _eval_results(os.path.join(shared, name))
    want = _eval_results(os.path.join(single, name))
    assert sorted(got) == sorted(want) and got["global_step"] == "4"
    for key in want:
      np.testing.assert_allclose(float(got[key]), float(want[key]),
                                 rtol=1e-4, err_msg=name + ": " + key)
  for name in ("eval_predictions.txt", "test_predictions.txt"):
    with open(os.path.join(shared, name)) as f:
      got = f.read()
    with open(os.path.join(single, name)) as f:
      want = f.read()
    assert got == want and got.count("\n\n") == 8, name


# ------------------------------------------------------------- bad input
# The scripts' mains run in this process (fixtures.run_in_process: the same
# one line and exit status as `python <script>.py`, which the tests above
# start for every script): each fails in the strategy's checks, before any
# TensorFlow runtime, cluster or TPU state is set up.
def _run(args, tf_config=None, script="run_pretraining.py", **env):
  env["TF_CONFIG"] = tf_config
  return fixtures.run_in_process(script, args, env=env)


@pytest.mark.parametrize("tf_config,expected", [
    (None, "needs the TF_CONFIG environment variable"),
    ('{"cluster": {"worker": ["127.0.0.1:1"]', "TF_CONFIG is not valid JSON"),
    ('{"cluster": {"worker": ["127.0.0.1:5000"]}, "task": {"type": '
     '"worker", "index": 3}}', "task index 3 is not in 0..0"),
])  # Every other case: tests/runner/cluster_test.py.
def test_bad_tf_config_is_one_line(inputs, tmp_path, tf_config, expected):
  out = tmp_path / "out"
  result = _run(_pretraining_args(inputs, inputs["config"], str(out), 2) +
                ["--strategy=multi_worker"], tf_config)
  assert expected in fixtures.error_line(result)
  assert not out.exists()


@pytest.mark.parametrize("script", ["run_classifier.py", "run_squad.py",
                                    "run_ner.py"])
def test_fine_tuning_scripts_without_tf_config_are_one_line(inputs, tmp_path,
                                                            script):
  """Every fine-tuning script starts the strategy first: no TF_CONFIG is
  its one line before any input is read or output written."""
  out = tmp_path / "out"
  args = ["--output_dir=%s" % out, "--vocab_file=" + inputs["vocab"],
          "--bert_config_file=" + inputs["config"], "--do_train=true",
          "--strategy=multi_worker"] + {
              "run_classifier.py": ["--task_name=cola",
                                    "--data_dir=" + inputs["glue"]],
              "run_squad.py": ["--train_file=" + inputs["squad"]],
              "run_ner.py": ["--data_dir=" + inputs["glue"]]}[script]
  line = fixtures.error_line(_run(args, script=script))
  assert "--strategy=multi_worker needs the TF_CONFIG environment" in line
  assert not out.exists()


def test_worker_that_never_comes_is_one_line_within_timeout(inputs,
                                                            tmp_path):
  out = tmp_path / "out"
  tf_config = launch_local.tf_configs(2)[0]  # Worker 1 is never started.
  result = _run(_pretraining_args(inputs, inputs["config"], str(out), 2) +
                ["--strategy=multi_worker", "--worker_timeout_secs=3"],
                json.dumps(tf_config))
  line = fixtures.error_line(result)
  assert "did not answer within --worker_timeout_secs=3" in line, line
  assert tf_config["cluster"]["worker"][1] in line
  assert not out.exists()


def test_tpu_name_that_does_not_resolve_is_one_line(inputs, tmp_path):
  out = tmp_path / "out"
  result = _run(
      _pretraining_args(inputs, inputs["config"], str(out), 2) +
      ["--use_tpu=true", "--tpu_name=no-such-tpu", "--worker_timeout_secs=5"],
      # No metadata server here: a refused port fails at once, offline.
      GCE_METADATA_HOST="127.0.0.1:1")
  line = fixtures.error_line(result)
  assert "--tpu_name=no-such-tpu" in line and "cannot find or reach" in line
  assert not out.exists()


def test_tpu_address_that_does_not_answer_is_one_line(inputs, tmp_path):
  out = tmp_path / "out"
  port = launch_local.free_ports(1)[0]
  result = _run(_pretraining_args(inputs, inputs["config"], str(out), 2) +
                ["--use_tpu=true", "--tpu_name=grpc://127.0.0.1:%d" % port,
                 "--worker_timeout_secs=5"])
  line = fixtures.error_line(result)
  assert "--tpu_name=grpc://127.0.0.1:%d" % port in line, line
  assert not out.exists()
