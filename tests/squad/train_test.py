"""A tiny BERT fine-tuned by run_squad learns a synthetic SQuAD 2.0 task.

Also: the original command line of run_squad.py predicts from the trained
checkpoint, and bad flags give clear errors.
"""

import json
import os
import subprocess

import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import padding
from bert_tf2.squad import evaluate as squad_eval
from bert_tf2.squad import job as squad_job
from bert_tf2.squad import flags as squad_flags
from bert_tf2.squad import postprocess
from bert_tf2.squad import records
from tests import warm_python
from tests.golden import REPO_ROOT
from tests.squad import synthetic


def _options(d, **overrides):
  o = dict(
      bert_config_file=d["config"], vocab_file=d["vocab"],
      output_dir=d["out"], train_file=d["train"], predict_file=d["dev"],
      init_checkpoint=None, do_lower_case=True, max_seq_length=32,
      doc_stride=8, max_query_length=8, do_train=True, do_predict=True,
      train_batch_size=16, predict_batch_size=8, learning_rate=2e-3,
      num_train_epochs=10.0, warmup_proportion=0.1,
      save_checkpoints_steps=100, iterations_per_loop=50, n_best_size=20,
      max_answer_length=30, use_tpu=False, tpu_name=None, tpu_zone=None,
      gcp_project=None, master=None, num_tpu_cores=8, verbose_logging=False,
      version_2_with_negative=True, null_score_diff_threshold=0.0,
      strategy=None, precision="float32", jit_compile=False,
      keep_checkpoint_max=5, gradient_accumulation_steps=1,
      skip_consumed_batches=False, optimizer="adamw")
  o.update(overrides)
  return squad_flags.default_options(**o)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
  # The initial weights must not depend on the tests that ran before in
  # this process (the global random state): one seed, one trained model.
  tf.keras.utils.set_random_seed(0)
  tmp = str(tmp_path_factory.mktemp("squad_train"))
  vocab, config, train, dev = synthetic.files(tmp, num_train=240, num_dev=60,
                                              version_2=True)
  d = dict(vocab=vocab, config=config, train=train, dev=dev,
           out=os.path.join(tmp, "out"), tmp=tmp)
  d["options"] = _options(d)
  d["result"] = squad_job.run(d["options"])
  return d


def test_training_finds_the_answers(trained):
  out = trained["out"]
  assert trained["result"]["num_train_steps"] == 150  # int(240 / 16 * 10)
  for name in ("train.tf_record", "eval.tf_record", "predictions.json",
               "nbest_predictions.json", "null_odds.json"):
    assert os.path.exists(os.path.join(out, name)), name
  metrics = squad_eval.evaluate_files(
      trained["dev"], os.path.join(out, "predictions.json"),
      os.path.join(out, "null_odds.json"))
  assert metrics["HasAns_exact"] >= 85.0, metrics
  assert metrics["NoAns_exact"] >= 85.0, metrics
  ckpt = tf.train.latest_checkpoint(out)
  assert ckpt.endswith("model.ckpt-150")
  names = dict(tf.train.list_variables(ckpt))
  assert names["cls/squad/output_weights"] == [2, 32]
  assert names["cls/squad/output_bias"] == [2]
  assert "cls/squad/output_weights/adam_m" in names


def test_a_training_and_prediction_run_reads_every_flag(trained):
  # Flags never lie: every run_squad.py flag is read by a run that trains
  # and predicts (the periodic-evaluation and export flags are read to be
  # checked; tests/squad/periodic_eval_test.py runs them all).
  assert sorted(trained["options"].unread()) == []


def test_original_command_line_predicts(trained):
  out = os.path.join(trained["tmp"], "cli_out")
  env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2",
             PYTHONPATH=REPO_ROOT)
  proc = subprocess.run(
      [warm_python.command(), os.path.join(REPO_ROOT, "run_squad.py"),
       "--vocab_file=" + trained["vocab"],
       "--bert_config_file=" + trained["config"],
       "--init_checkpoint=" + os.path.join(trained["out"], "model.ckpt-150"),
       "--do_predict=True", "--predict_file=" + trained["dev"],
       "--max_seq_length=32", "--doc_stride=8", "--max_query_length=8",
       "--version_2_with_negative=True", "--output_dir=" + out],
      env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
      check=False)
  assert proc.returncode == 0, proc.stderr[-3000:]
  with open(os.path.join(out, "predictions.json")) as f:
    cli = json.load(f)
  with open(os.path.join(trained["out"], "predictions.json")) as f:
    in_process = json.load(f)
  assert cli == in_process
  assert not os.path.exists(os.path.join(out, "train.tf_record"))


@pytest.mark.parametrize("change,message", [
    (dict(do_train=False, do_predict=False), "At least one of --do_train"),
    (dict(train_file=None), "--do_train needs --train_file"),
    (dict(predict_file="/nonexistent/dev.json"),
     "--predict_file=/nonexistent/dev.json: file not found"),
    (dict(max_seq_length=11), "must be greater than --max_query_length"),
    (dict(max_seq_length=128), "max_position_embeddings=64"),
    (dict(doc_stride=0), "--doc_stride=0"),
    (dict(init_checkpoint="/nonexistent/model.ckpt"), "--init_checkpoint"),
])
def test_bad_flags_give_clear_errors(trained, change, message):
  with pytest.raises(InputError, match=message):
    squad_job.validate(_options(trained, **change))


def test_vocab_larger_than_config_is_rejected(trained, tmp_path):
  config = json.load(open(trained["config"]))
  config["vocab_size"] = 10
  path = tmp_path / "small_config.json"
  path.write_text(json.dumps(config))
  with pytest.raises(InputError, match="vocab_size=10"):
    squad_job.validate(_options(trained, bert_config_file=str(path)))


def test_output_dir_with_another_models_checkpoint_is_rejected(trained,
                                                               tmp_path):
  config = json.load(open(trained["config"]))
  config.update(hidden_size=48, intermediate_size=96)
  path = tmp_path / "wider_config.json"
  path.write_text(json.dumps(config))
  o = _options(trained, bert_config_file=str(path), do_train=False)
  with pytest.raises(InputError, match=r"\[.*32\].*\[.*48\]|\[.*48\].*\[.*32\]"):
    squad_job.run(o)


def _predict_files(trained, name, trim_padding):
  out = os.path.join(trained["tmp"], name)
  squad_job.run(_options(
      trained, output_dir=out, do_train=False, max_seq_length=32,
      init_checkpoint=os.path.join(trained["out"], "model.ckpt-150"),
      trim_padding=trim_padding))
  loaded = {}
  for name in ("predictions", "nbest_predictions", "null_odds"):
    with open(os.path.join(out, name + ".json")) as f:
      loaded[name] = json.load(f)
  return loaded


def test_trimmed_prediction_matches_fixed_padding(trained):
  # At the trained max_seq_length (32) the shorter windows run trimmed to
  # 24 or 16 positions. Answers, null odds and the best candidate agree;
  # lower n-best entries can differ where a padding position's logit
  # ranked among the n_best_size best (seen here; why --trim_padding is
  # opt-in for SQuAD), and so can a question's null odds where they took
  # every slot (below).
  fixed = _predict_files(trained, "fixed", trim_padding=False)
  trimmed = _predict_files(trained, "trimmed", trim_padding=True)
  input_fn = records.input_fn_builder(
      os.path.join(trained["tmp"], "trimmed", "eval.tf_record"), 32,
      is_training=False, drop_remainder=False, trim_padding=True,
      buckets=padding.bucket_lengths(32, fine=True))
  lengths = [int(b["input_ids"].shape[1])
             for b in input_fn({"batch_size": 8})]
  assert min(lengths) < 32 and len(lengths) > 5, lengths
  assert trimmed["predictions"] == fixed["predictions"]
  assert sorted(trimmed["null_odds"]) == sorted(fixed["null_odds"])
  no_candidate = set()
  for qid, value in fixed["null_odds"].items():
    if value == postprocess.NO_CANDIDATE_SCORE_DIFF:
      # At fixed padding the n_best_size best start (or end) positions of
      # every window can all be padding, leaving no non-null span to score
      # (trimmed windows have no padding to rank); the answer is "" both
      # ways (predictions equal above).
      assert fixed["predictions"][qid] == "", qid
      no_candidate.add(qid)
      continue
    assert abs(trimmed["null_odds"][qid] - value) < 1e-4, qid
  assert len(no_candidate) < len(fixed["null_odds"]) // 2, no_candidate
  for qid, entries in fixed["nbest_predictions"].items():
    if qid in no_candidate:
      continue
    best, got = entries[0], trimmed["nbest_predictions"][qid][0]
    assert got["text"] == best["text"], qid
    for key in ("start_logit", "end_logit"):
      assert abs(got[key] - best[key]) < 1e-4, (qid, key)


def test_training_records_are_never_trimmed(trained):
  with pytest.raises(ValueError, match="loss counts padding"):
    records.input_fn_builder(os.path.join(trained["out"], "train.tf_record"),
                             32, is_training=True, drop_remainder=True,
                             trim_padding=True)
