"""Flags never lie, for every script: some run reads each flag it defines.

Each script of tests/scripts_flags_snapshot.json runs in this process on a
tiny model and tiny data with a few command lines that together use every
feature (tests/flag_reads.py: the script's real `main`, reads of absl FLAGS
and of the typed settings made from them recorded). A flag that no run
reads is defined and wired to nothing: the test names it. A run may end
in an expected `error:` line: a flag that refuses a value has acted.

Excluded flags (`EXCLUDED`) say where they act instead.
"""

import json
import os
import socket

import numpy as np
import pytest

from tests import flag_reads
from tests.reliability import fixtures

SNAPSHOT = os.path.join(os.path.dirname(__file__),
                        "scripts_flags_snapshot.json")

# {script: {flag: where it acts instead of a run here}}.
EXCLUDED = {}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
  return fixtures.make_inputs(tmp_path_factory.mktemp("inputs"))


def _closed_port():
  """A local port nothing listens on: a TPU address that fails at once."""
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _check(script, runs):
  """Runs `runs` [(args, None or expected error text)] of `script`; asserts
  each ends as expected and every flag of the script was read."""
  with open(SNAPSHOT) as f:
    snapshot = set(json.load(f)[script])
  with flag_reads.ScriptRunner(script) as runner:
    assert runner.flag_names == snapshot, "the script's flags changed"
    for args, error in runs:
      result = runner.run(args)
      if error is None:
        assert result.returncode == 0, (args, result.stderr[-3000:])
      else:
        assert error in fixtures.error_line(result), (args, result.stderr)
    unread = runner.unread() - set(EXCLUDED.get(script, ()))
  assert sorted(unread) == [], "%s: flags no run read" % script


def test_evaluate_squad(inputs, tmp_path):
  preds = fixtures.write_json(str(tmp_path / "preds.json"),
                              {"q0": "red", "q1": "blue"})
  odds = fixtures.write_json(str(tmp_path / "odds.json"),
                             {"q%d" % i: 0.5 for i in range(4)})
  _check("evaluate_squad", [
      (["--data_file=" + inputs["squad"], "--pred_file=" + preds,
        "--out_file=" + str(tmp_path / "eval.json")], None),
      (["--data_file=" + inputs["squad"], "--pred_file=" + preds,
        "--na_prob_file=" + odds, "--na_prob_thresh=0.4", "--version=2.0"],
       None),
      (["--preserve_unused_tokens=true", inputs["squad"], preds],
       "--preserve_unused_tokens: evaluate_squad.py does not tokenize text"),
  ])


def test_create_vocab(inputs, tmp_path):
  out = str(tmp_path / "vocab.txt")
  _check("create_vocab", [
      (fixtures.flag_args(input_file=inputs["text"], output_file=out,
                          vocab_size=200, do_lower_case=False, num_unused=5,
                          max_unique_chars=50, min_count=1), None),
      (["--preserve_unused_tokens=true", "--input_file=" + inputs["text"],
        "--output_file=" + out],
       "--preserve_unused_tokens: create_vocab.py splits words before any "
       "vocabulary exists"),
  ])


def test_create_pretraining_data(inputs, tmp_path):
  base = dict(input_file=inputs["text"], vocab_file=inputs["vocab"],
              max_seq_length=16, max_predictions_per_seq=4, dupe_factor=1)
  segmented = fixtures.write_text(
      str(tmp_path / "segmented.txt"),
      open(inputs["text"], encoding="utf-8").read())
  _check("create_pretraining_data", [
      (fixtures.flag_args(output_file=str(tmp_path / "a.tfrecord"),
                          do_lower_case=True, do_whole_word_mask=True,
                          random_seed=7, masked_lm_prob=0.2,
                          short_seq_prob=0.5, preserve_unused_tokens=True,
                          **base), None),
      (fixtures.flag_args(output_file=str(tmp_path / "b.tfrecord"),
                          num_workers=2, shard_documents=2, **base), None),
      (fixtures.flag_args(output_file=str(tmp_path / "c.tfrecord"),
                          word_boundaries="spaces", segmented_file=segmented,
                          **base), None),
  ])


def test_convert_hf_checkpoint(inputs, tmp_path):
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import modeling  # pylint: disable=g-import-not-at-top
  from tests.modeling import hf_import_test  # pylint: disable=g-import-not-at-top
  reader = tf.train.load_checkpoint(inputs["ckpt"])
  names = {n: reader.get_tensor(n) for n in reader.get_variable_to_shape_map()}
  config = modeling.BertConfig.from_json_file(inputs["config"])
  hf_dir = hf_import_test._hf_dir(tmp_path, config,  # pylint: disable=protected-access
                                  hf_import_test._to_hf(names))  # pylint: disable=protected-access
  _check("convert_hf_checkpoint", [
      (["--hf_dir=" + hf_dir, "--output_dir=" + str(tmp_path / "out"),
        "--exact_gelu=true"], None),
      (["--hf_dir=" + hf_dir, "--output_dir=" + str(tmp_path / "out2"),
        "--preserve_unused_tokens=true"], "--preserve_unused_tokens"),
  ])


def test_analyze_position_embeddings(inputs, tmp_path):
  base = ["--init_checkpoint=" + inputs["ckpt"]]
  _check("analyze_position_embeddings", base and [
      (base + fixtures.flag_args(
          output_dir=str(tmp_path / "out"),
          variable="bert/embeddings/position_embeddings", max_positions=24,
          num_components=3, initializer_range=0.05, seed=3,
          probe_include_cls=True, max_pairs=200), None),
      (base + ["--output_dir=" + str(tmp_path / "out2"),
               "--preserve_unused_tokens=true"], "--preserve_unused_tokens"),
  ])


def test_visualize_attention(inputs, tmp_path):
  _check("visualize_attention", [
      (fixtures.flag_args(
          bert_config_file=inputs["config"], init_checkpoint=inputs["ckpt"],
          vocab_file=inputs["vocab"], text_a="the film was good",
          text_b="it is [unused3] .", do_lower_case=False, layers="0",
          heads="0,1", max_seq_length=12, preserve_unused_tokens=True,
          output_file=str(tmp_path / "attention.png")), None),
  ])


def test_extract_features(inputs, tmp_path):
  base = dict(input_file=inputs["text"], vocab_file=inputs["vocab"],
              bert_config_file=inputs["config"],
              init_checkpoint=inputs["ckpt"], layers="-1,0",
              max_seq_length=16, batch_size=2)
  _check("extract_features", [
      (fixtures.flag_args(output_file=str(tmp_path / "a.jsonl"),
                          do_lower_case=False, trim_padding=False,
                          use_one_hot_embeddings=True, pooling="mean",
                          preserve_unused_tokens=True,
                          export_dir=str(tmp_path / "export"), **base), None),
      (fixtures.flag_args(output_file=str(tmp_path / "b.jsonl"),
                          use_tpu=True, num_tpu_cores=8,
                          master="grpc://127.0.0.1:%d" % _closed_port(),
                          **base), "no TPU answers"),
  ])
