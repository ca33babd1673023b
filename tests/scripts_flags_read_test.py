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


# The raw-text SavedModels tokenize in the graph, without
# --preserve_unused_tokens: the two flags together are refused up front.
PRESERVE_WITH_EXPORT = ("--preserve_unused_tokens: the SavedModel of "
                        "--export_dir tokenizes raw text in the graph")


def _export_refuses_preserve(base, **values):
  return (fixtures.flag_args(preserve_unused_tokens=True,
                             **dict(base, **values)), PRESERVE_WITH_EXPORT)


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


def test_every_script_has_its_runs():
  with open(SNAPSHOT) as f:
    scripts = set(json.load(f))
  assert scripts == {name[len("test_"):] for name in globals()
                     if name[len("test_"):] in scripts}


def test_recorder_counts_flag_and_settings_reads_only():
  # The mechanism itself: FLAGS.x, FLAGS["y"] and fields read of Settings
  # made by from_flags count; from_flags' own look at every flag does not.
  from absl import flags  # pylint: disable=g-import-not-at-top
  from bert_tf2 import finetune  # pylint: disable=g-import-not-at-top
  fv = flags.FlagValues()
  for name in ("a", "b", "c", "d"):
    flags.DEFINE_integer(name, 0, "", flag_values=fv)
  fv(["prog", "--a=1"])
  recorder = flag_reads._Recorder(fv)  # pylint: disable=protected-access
  with recorder.recording():
    settings = finetune.Settings.from_flags(fv)
    assert fv.a == 1 and fv["b"].value == 0 and settings.c == 0
  assert recorder.read() == {"a", "b", "c"}
  assert fv.d == 0  # After recording: not counted.
  assert recorder.read() == {"a", "b", "c"}


def test_runner_leaves_flags_and_modules_as_found(inputs, tmp_path):
  from absl import flags  # pylint: disable=g-import-not-at-top
  import sys  # pylint: disable=g-import-not-at-top
  before = {name: flags.FLAGS[name] for name in flags.FLAGS}
  parsed = flags.FLAGS.is_parsed()
  module = sys.modules.get("bert_tf2.scripts.create_vocab")
  with flag_reads.ScriptRunner("create_vocab") as runner:
    result = runner.run(["--input_file=" + inputs["text"],
                         "--output_file=" + str(tmp_path / "v.txt"),
                         "--vocab_size=150", "--num_unused=3"])
    assert result.returncode == 0, result.stderr[-3000:]
    assert "min_count" in flags.FLAGS
    assert {"vocab_size", "num_unused"} <= runner.read
    assert "preserve_unused_tokens" in runner.read
  assert {name: flags.FLAGS[name] for name in flags.FLAGS} == before
  assert flags.FLAGS.is_parsed() == parsed
  assert sys.modules.get("bert_tf2.scripts.create_vocab") is module


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
      (fixtures.flag_args(output_file=str(tmp_path / "b"),
                          num_output_files=2, num_workers=2,
                          shard_documents=2, **base), None),
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
  _check("analyze_position_embeddings", [
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
  master = "grpc://127.0.0.1:%d" % _closed_port()
  _check("extract_features", [
      (fixtures.flag_args(output_file=str(tmp_path / "a.jsonl"),
                          do_lower_case=False, trim_padding=False,
                          use_one_hot_embeddings=True, pooling="mean",
                          preserve_unused_tokens=True, precision="bfloat16",
                          **base), None),
      (fixtures.flag_args(output_file=str(tmp_path / "c.jsonl"),
                          export_dir=str(tmp_path / "export"), **base), None),
      _export_refuses_preserve(base, output_file=str(tmp_path / "d.jsonl"),
                               export_dir=str(tmp_path / "export2")),
      # The error names the flag given (it said --tpu_name for --master).
      (fixtures.flag_args(output_file=str(tmp_path / "b.jsonl"),
                          use_tpu=True, num_tpu_cores=8, master=master,
                          **base), "--master=%s: no TPU answers" % master),
  ])


# The fine-tuning scripts: a run with training, periodic evaluation, early
# stopping, the best checkpoint, prediction and export, then the variants
# (other readers, TPU) that read the remaining flags.

def _tpu_args():
  """A TPU command line that fails at once, offline (nothing listens)."""
  return ["--use_tpu=true", "--tpu_name=grpc://127.0.0.1:%d" % _closed_port(),
          "--tpu_zone=us-central1-b", "--gcp_project=p", "--num_tpu_cores=8",
          "--worker_timeout_secs=5"]


# Evaluation during training, early stopping and the best checkpoint.
PERIODIC = dict(eval_every_n_steps=2, early_stopping_metric="eval_loss",
                early_stopping_mode="min", early_stopping_patience=5,
                keep_best_checkpoint=True)


def _finetuning_args(vocab, config, out, drop=(), **extra):
  values = dict(vocab_file=vocab, bert_config_file=config, output_dir=out,
                do_train=True, do_eval=True, do_predict=True,
                max_seq_length=8, train_batch_size=2, eval_batch_size=2,
                predict_batch_size=2, num_train_epochs=1.0,
                learning_rate=1e-3, warmup_proportion=0.2,
                save_checkpoints_steps=1,
                keep_checkpoint_max=2, iterations_per_loop=1,
                gradient_accumulation_steps=1, optimizer="adamw",
                precision="float32", jit_compile=False, strategy="default",
                skip_consumed_batches=True, do_lower_case=True,
                export_dir=out + "_export")
  values.update(extra)
  return fixtures.flag_args(**{k: v for k, v in values.items()
                               if k not in drop})


@pytest.mark.slow
def test_run_classifier(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  rows = ["label\ttext\tother", "pos\tgood fun\tfun", "neg\tmeh\tgood",
          "pos\tfun fun\tmeh", "neg\tmeh meh\tfun"]
  for name in ("train", "dev", "test"):
    (data / (name + ".tsv")).write_text("\n".join(rows) + "\n")
  (data / "multi.csv").write_text(
      "labels,text\npos|neg,good fun\nneg,meh\npos,fun fun\n")
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  out = str(tmp_path / "out")
  tsv = ["--task_name=tsv", "--data_dir=%s" % data, "--text_a_column=text",
         "--label_column=label", "--label_list=neg,pos"]
  _check("run_classifier", [
      (tsv + _finetuning_args(vocab, config, out, text_b_column="other",
                              **PERIODIC,
                              classifier_dropout_prob=0.2, trim_padding=True,
                              group_by_length=True, train_file="train.tsv",
                              dev_file="dev.tsv", test_file="test.tsv"),
       None),
      (tsv + _finetuning_args(vocab, config, out + "2", do_train=False,
                              do_eval=False, long_text="sliding_window",
                              doc_stride=2, init_checkpoint=out,
                              export_dir="", preserve_unused_tokens=True),
       None),
      (tsv + _finetuning_args(vocab, config, out + "5",
                              preserve_unused_tokens=True),
       PRESERVE_WITH_EXPORT),
      (["--task_name=csv", "--data_dir=%s" % data,
        "--multi_label_delimiter=|", "--label_column=labels",
        "--text_a_column=text", "--label_list=neg,pos", "--has_header=true",
        "--delimiter=comma", "--quotechar='"] + _finetuning_args(
            vocab, config, out + "3", do_train=False, init_checkpoint=out,
            dev_file="multi.csv", test_file="multi.csv", export_dir=""),
       None),
      (tsv + _finetuning_args(vocab, config, out + "4") + _tpu_args(),
       "no TPU answers"),
  ])


NER_SENTENCES = ["paris B-LOC\nis O\nnice O", "bob B-PER\nis O\nnice O",
                 "nice O\nparis B-LOC", "bob B-PER\nbob I-PER"]


@pytest.mark.slow
def test_run_ner(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  for name in ("train", "dev", "test"):
    (data / (name + ".conll")).write_text("\n\n".join(NER_SENTENCES) + "\n")
  labels = fixtures.write_text(str(tmp_path / "labels.txt"),
                               "O\nB-LOC\nI-LOC\nB-PER\nI-PER\n")
  vocab, config = fixtures.tiny_model_files(tmp_path,
                                            ["paris", "bob", "is", "nice"])
  out = str(tmp_path / "out")
  files = ["--data_dir=%s" % data, "--train_file=train.conll",
           "--dev_file=dev.conll", "--test_file=test.conll"]
  _check("run_ner", [
      (files + _finetuning_args(
          vocab, config, out, labels_file=labels, doc_stride=2,
          classifier_dropout_prob=0.2, crf=True, crf_constraints="BIO",
          crf_learning_rate_multiplier=10.0,
          **dict(PERIODIC, early_stopping_metric="eval_f1",
                 early_stopping_mode="max")), None),
      (files + _finetuning_args(vocab, config, out + "3", doc_stride=2,
                                preserve_unused_tokens=True),
       PRESERVE_WITH_EXPORT),
      (files + _finetuning_args(vocab, config, out + "2") + _tpu_args(),
       "no TPU answers"),
  ])


@pytest.mark.slow
def test_run_squad(tmp_path):
  from tests.squad import synthetic  # pylint: disable=g-import-not-at-top
  vocab, config, train, dev = synthetic.files(str(tmp_path), num_train=8,
                                              num_dev=4, version_2=True)
  out = str(tmp_path / "out")
  squad = fixtures.flag_args(
      train_file=train, predict_file=dev, max_seq_length=32, doc_stride=8,
      max_query_length=8, n_best_size=3, max_answer_length=5,
      verbose_logging=True, version_2_with_negative=True,
      null_score_diff_threshold=0.5, trim_padding=False)
  # run_squad.py has no --do_eval / --eval_batch_size: the dev set of the
  # evaluation during training is --predict_file.
  no_eval = ("do_eval", "eval_batch_size")
  periodic = dict(PERIODIC, early_stopping_metric="eval_f1",
                  early_stopping_mode="max")
  _check("run_squad", [
      (_finetuning_args(vocab, config, out, drop=no_eval, **periodic)
       + squad, None),
      (_finetuning_args(vocab, config, out + "2",
                        drop=no_eval + ("export_dir",))
       + squad + ["--preserve_unused_tokens=true"], None),
      (_finetuning_args(vocab, config, out + "3", drop=no_eval) + squad
       + _tpu_args(),
       "no TPU answers"),
  ])


def _write_jsonl(path, objects):
  fixtures.write_text(path, "".join(json.dumps(o) + "\n" for o in objects))


@pytest.mark.slow
def test_run_multiple_choice(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  rows = [{"context": "good fun", "choices": ["meh", "fun", "good"],
           "label": i % 3} for i in range(4)]
  for name in ("train", "dev", "test"):
    _write_jsonl(str(data / (name + ".jsonl")), rows)
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  out = str(tmp_path / "out")
  files = ["--data_dir=%s" % data, "--train_file=train.jsonl",
           "--dev_file=dev.jsonl", "--test_file=test.jsonl"]
  _check("run_multiple_choice", [
      (files + _finetuning_args(vocab, config, out,
                                classifier_dropout_prob=0.2, **PERIODIC),
       None),
      (files + _finetuning_args(vocab, config, out + "3",
                                preserve_unused_tokens=True),
       PRESERVE_WITH_EXPORT),
      (files + _finetuning_args(vocab, config, out + "2") + _tpu_args(),
       "no TPU answers"),
  ])


@pytest.mark.slow
def test_run_embedding(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  pairs = [{"anchor": "good", "positive": "good fun", "negative": "meh"},
           {"anchor": "meh", "positive": "meh meh", "negative": "fun"}] * 2
  for name in ("train", "dev", "test"):
    _write_jsonl(str(data / (name + ".jsonl")), pairs)
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  out = str(tmp_path / "out")
  files = ["--data_dir=%s" % data, "--train_file=train.jsonl",
           "--dev_file=dev.jsonl", "--test_file=test.jsonl"]
  _check("run_embedding", [
      (files + _finetuning_args(vocab, config, out, pooling="cls",
                                normalize=False, scale=10.0, **PERIODIC),
       None),
      (files + _finetuning_args(vocab, config, out + "3",
                                preserve_unused_tokens=True),
       PRESERVE_WITH_EXPORT),
      (files + _finetuning_args(vocab, config, out + "2") + _tpu_args(),
       "no TPU answers"),
  ])


@pytest.mark.slow
def test_run_pretraining(inputs, tmp_path):
  out = str(tmp_path / "out")
  base = dict(input_file=inputs["records"], bert_config_file=inputs["config"],
              init_checkpoint=inputs["ckpt"], max_seq_length=fixtures.SEQ,
              max_predictions_per_seq=fixtures.MAX_PRED, train_batch_size=2,
              eval_batch_size=2, num_train_steps=2, num_warmup_steps=1,
              learning_rate=1e-3, save_checkpoints_steps=1,
              iterations_per_loop=1, keep_checkpoint_max=2, max_eval_steps=1,
              do_train=True, do_eval=True, strategy="default",
              precision="float32", jit_compile=False, optimizer="adamw",
              gradient_accumulation_steps=1, skip_consumed_batches=True)
  _check("run_pretraining", [
      (fixtures.flag_args(
          output_dir=out, dynamic_masking=True, masked_lm_prob=0.2,
          dynamic_masking_seed=3, vocab_file=inputs["vocab"], no_nsp=True,
          check_all_records=True, deterministic_input=True,
          **dict(base, **dict(PERIODIC,
                              early_stopping_metric="masked_lm_loss"))),
       None),
      (fixtures.flag_args(output_dir=out + "2", **base) + _tpu_args(),
       "no TPU answers"),
      (fixtures.flag_args(output_dir=out + "3", preserve_unused_tokens=True,
                          **base), "--preserve_unused_tokens"),
  ])
