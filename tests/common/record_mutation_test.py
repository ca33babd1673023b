"""A run's directory cannot lie (issue 63): every mutation of a real run's
record is refused in one line naming model.json (or the file), or answers
exactly as the run does, on every loader.

One tiny classifier run is trained by run_classifier's pipeline (module
fixture, two steps). Each case copies its output_dir, applies one mutation
(MUTATIONS: docs/reliability.md section 2e lists them) and loads the copy
with `models.load`, `models.load_predictor` and
`ClassifierPredictor.from_output_dir`; a refusal must be one InputError
line holding the expected words, before any file outside the directory is
opened; a harmless change must give the run's answers exactly. The
script's --do_predict (in process) gets the cases it reads the directory
for (SCRIPT_CASES).
"""

import copy
import json
import os
import random
import shutil

import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2 import models
from bert_tf2.classifier import pipeline
from bert_tf2.classifier.options import default_options
from bert_tf2.classifier.predictor import ClassifierPredictor
from bert_tf2.common import InputError
from tests.classifier import tiny_task
from tests.reliability import fixtures

TEXTS = ["w1 alpha w2", "w3 w4 w5", "w6 alpha w7 w8", "w9 w10"]
CKPT = "model.ckpt-2"
INDEX, DATA = CKPT + ".index", CKPT + ".data-00000-of-00001"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
  """{"out": the run's output_dir, "other": a checkpoint of the same shape
  and other weights, "outside": a folder outside the run, "options"}."""
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("mutation"))
  os.makedirs(os.path.join(root, "data"))
  rng = random.Random(0)
  rows = []
  for i in range(16):
    words = rng.sample(tiny_task.WORDS, 5)
    if i % 2 == 0:
      words.insert(2, "alpha")
    rows.append(("yes" if i % 2 == 0 else "no", " ".join(words)))
  tiny_task.write_tsv(os.path.join(root, "data", "train.tsv"),
                      ["label", "text"], rows)
  tiny_task.write_tsv(os.path.join(root, "data", "test.tsv"),
                      ["label", "text"], rows[:4])
  vocab, config = tiny_task.write_model_files(root)
  options = default_options(
      task_name="tsv", data_dir=os.path.join(root, "data"), vocab_file=vocab,
      bert_config_file=config, output_dir=os.path.join(root, "out"),
      text_a_column="text", label_column="label", label_list="no,yes",
      do_train=True, max_seq_length=16, train_batch_size=8,
      num_train_epochs=1.0, save_checkpoints_steps=1000)
  pipeline.run(options)
  reader = tf.train.load_checkpoint(os.path.join(options.output_dir, CKPT))
  other = os.path.join(root, "other", CKPT)
  modeling.write_checkpoint(
      {n: (reader.get_tensor(n) + 0.5 if reader.get_tensor(n).dtype.kind ==
           "f" else reader.get_tensor(n))
       for n in reader.get_variable_to_shape_map()}, other)
  outside = os.path.join(root, "outside")
  os.makedirs(outside)
  return {"out": options.output_dir, "other": other, "outside": outside,
          "options": options}


def _answers(loader, directory, **kwargs):
  """The predictions of `loader` on TEXTS: [(label, probabilities)]."""
  if loader == "load":
    logits = models.load(directory, **kwargs).predict(TEXTS, verbose=0)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    probs = e / e.sum(-1, keepdims=True)
    return [("no", "yes")[int(np.argmax(p))] for p in probs], probs
  predictor = (models.load_predictor(directory, **kwargs)
               if loader == "load_predictor"
               else ClassifierPredictor.from_output_dir(directory, **kwargs))
  answers = predictor.predict(TEXTS)
  return ([a["label"] for a in answers],
          np.array([a["probabilities"] for a in answers]))


# Mutations: fn(directory, run) edits a copy of the run's output_dir.
def _edit(fn):
  def mutate(d, run):
    del run
    fixtures.edit_model_json(d, fn)
  return mutate


def _set(section, key, value):
  def fn(record):
    (record if section is None else record[section])[key] = value
  return _edit(fn)


def _raw(fn):
  def mutate(d, run):
    del run
    path = os.path.join(d, "model.json")
    with open(path) as f:
      text = f.read()
    with open(path, "w") as f:
      f.write(fn(text))
  return mutate


def _link(name, target):
  """`name` replaced by a symlink to target(run) (a path)."""
  def mutate(d, run):
    os.remove(os.path.join(d, name))
    os.symlink(target(run), os.path.join(d, name))
  return mutate


def _outside_copy(name):
  def target(run):
    copy_path = os.path.join(run["outside"], name)
    shutil.copy(os.path.join(run["out"], name), copy_path)
    return copy_path
  return target


def _other_weights(d, run):
  for name in (INDEX, DATA):
    os.remove(os.path.join(d, name))
    os.symlink(run["other"] + name[len(CKPT):], os.path.join(d, name))


def _other_weights_copied(d, run):
  for name in (INDEX, DATA):
    shutil.copy(run["other"] + name[len(CKPT):], os.path.join(d, name))


def _swap_tokens(d, run):
  del run
  path = os.path.join(d, "vocab.txt")
  lines = open(path).read().split("\n")
  i, j = lines.index("w1"), lines.index("alpha")
  lines[i], lines[j] = lines[j], lines[i]
  with open(path, "w") as f:
    f.write("\n".join(lines))


def _without_digest(name):
  return _edit(lambda r: r["sha256"].pop(name))


def _both(*mutations):
  def mutate(d, run):
    for m in mutations:
      m(d, run)
  return mutate


def _truncate(name):
  def mutate(d, run):
    del run
    path = os.path.join(d, name)
    data = open(path, "rb").read()
    with open(path, "wb") as f:
      f.write(data[:len(data) // 2])
  return mutate


def _legacy_absolute_checkpoint(d, run):
  """An earlier version's predictor/predictor.json naming another run's
  checkpoint by absolute path; no model.json."""
  os.makedirs(os.path.join(d, "predictor"))
  digests = {}
  record = json.load(open(os.path.join(d, "model.json")))
  for name in ("bert_config.json", "vocab.txt"):
    shutil.copy(os.path.join(d, name), os.path.join(d, "predictor", name))
    digests[name] = record["sha256"][name]
  os.remove(os.path.join(d, "model.json"))
  with open(os.path.join(d, "predictor", "predictor.json"), "w") as f:
    json.dump(dict(kind="classifier", do_lower_case=True, max_seq_length=16,
                   label_list=["no", "yes"], sha256=digests,
                   checkpoint=run["other"]), f)


def _deep(text):
  return text.rstrip()[:-1] + ', "deep": ' + "[" * 100000 + "]" * 100000 + "}"


def _reformat(d, run):
  del run
  path = os.path.join(d, "model.json")
  record = json.load(open(path))
  with open(path, "w") as f:
    json.dump(dict(reversed(list(record.items()))), f, indent=7)


# (id, mutation, words every refusal holds; None: the run's answers).
MUTATIONS = [
    ("weights_symlinked_to_other_run", _other_weights,
     [INDEX, "leads outside"]),
    ("weights_copied_from_other_run", _other_weights_copied,
     ["damaged", "checkpoint"]),
    ("weights_data_cut_short", _truncate(DATA), [DATA, "damaged"]),
    ("checkpoint_digest_removed", _without_digest(INDEX),
     ["model.json", "sha256", INDEX]),
    ("vocab_symlinked_outside_same_bytes",
     _link("vocab.txt", _outside_copy("vocab.txt")),
     ["vocab.txt", "leads outside"]),
    ("vocab_symlinked_to_etc_passwd_digest_removed",
     _both(_link("vocab.txt", lambda run: "/etc/passwd"),
           _without_digest("vocab.txt")), ["vocab.txt", "leads outside"]),
    ("model_json_symlinked_outside",
     _link("model.json", _outside_copy("model.json")),
     ["model.json", "leads outside"]),
    ("config_symlinked_outside",
     _link("bert_config.json", _outside_copy("bert_config.json")),
     ["bert_config.json", "leads outside"]),
    ("vocab_tokens_swapped", _swap_tokens, ["vocab.txt", "damaged"]),
    ("vocab_tokens_swapped_digest_removed",
     _both(_swap_tokens, _without_digest("vocab.txt")),
     ["model.json", "sha256", "vocab.txt"]),
    ("three_labels_on_two_way_head",
     _set("outputs", "labels", ["no", "yes", "maybe"]),
     ["model.json", "outputs.labels"]),
    ("one_label_on_two_way_head", _set("outputs", "labels", ["no"]),
     ["model.json", "outputs.labels"]),
    ("three_labels_and_num_labels",
     _edit(lambda r: (r["outputs"].update(labels=["a", "b", "c"]),
                      r["model"].update(num_labels=3))),
     ["model.json", "model.num_labels", "head"]),
    ("labels_a_string", _set("outputs", "labels", "ab"),
     ["model.json", "outputs.labels", '"ab"']),
    ("labels_duplicate", _set("outputs", "labels", ["no", "no"]),
     ["outputs.labels", "distinct"]),
    ("labels_empty_string", _set("outputs", "labels", ["", "yes"]),
     ["outputs.labels"]),
    ("max_seq_length_true", _set("preprocessor", "max_seq_length", True),
     ["model.json", "preprocessor.max_seq_length", "true"]),
    ("max_seq_length_string", _set("preprocessor", "max_seq_length", "16"),
     ["preprocessor.max_seq_length", '"16"']),
    ("max_seq_length_fraction", _set("preprocessor", "max_seq_length",
                                     16.7), ["max_seq_length", "16.7"]),
    ("max_seq_length_zero", _set("preprocessor", "max_seq_length", 0),
     ["max_seq_length", "integer"]),
    ("max_seq_length_negative", _set("preprocessor", "max_seq_length", -5),
     ["max_seq_length", "-5"]),
    ("max_seq_length_beyond_positions",
     _set("preprocessor", "max_seq_length", 65),
     ["max_seq_length", "max_position_embeddings"]),
    ("do_lower_case_string", _set("preprocessor", "do_lower_case", "false"),
     ["preprocessor.do_lower_case", "true or false"]),
    ("do_lower_case_one", _set("preprocessor", "do_lower_case", 1),
     ["do_lower_case", "true or false"]),
    ("doc_stride_negative", _set("preprocessor", "doc_stride", -1),
     ["preprocessor.doc_stride", "-1"]),
    ("long_text_unknown", _set("preprocessor", "long_text", "chunks"),
     ["preprocessor.long_text", "sliding_window"]),
    ("num_labels_huge", _set("model", "num_labels", 10**12),
     ["model.num_labels", "1000000000000"]),
    ("num_labels_negative", _set("model", "num_labels", -1),
     ["model.num_labels"]),
    ("multi_label_string", _set("model", "multi_label", "false"),
     ["model.multi_label"]),
    ("unknown_top_level_key", _set(None, "labels", ["no", "yes"]),
     ["model.json", '"labels"', "no such key"]),
    ("unknown_preprocessor_key", _set("preprocessor", "lowercase", True),
     ["preprocessor.lowercase", "no such key"]),
    ("unknown_model_key", _set("model", "dropout", 0.1),
     ["model.dropout", "no such key"]),
    ("unknown_outputs_key", _set("outputs", "top_k", 2),
     ["outputs.top_k", "no such key"]),
    ("deeply_nested", _raw(_deep), ["model.json", "nested"]),
    ("duplicate_key", _raw(lambda t: t.rstrip()[:-1] + ', "task": "ner"}'),
     ["model.json", "duplicate"]),
    ("not_a_number", _raw(lambda t: t.replace('"multi_label": false',
                                              '"multi_label": NaN')),
     ["model.json", "NaN"]),
    ("version_a_string", _set(None, "version", "1"), ['"version"']),
    ("digest_not_hex", _edit(lambda r: r["sha256"].update(
        {"vocab.txt": "x" * 64})), ["sha256"]),
    ("unknown_digest", _edit(lambda r: r["sha256"].update(
        {"other.txt": "0" * 64})), ["sha256.other.txt"]),
    ("checkpoint_absolute", _set(None, "checkpoint", "/etc/passwd"),
     ["checkpoint", "plain file name"]),
    ("precision_unknown", _set(None, "precision", "int4"),
     ['"precision"', "float16"]),
    ("legacy_predictor_json_absolute_checkpoint",
     _legacy_absolute_checkpoint, ["predictor.json", "checkpoint"]),
    # Harmless: the run's answers.
    ("reformatted", _reformat, None),
    ("precision_float32", _set(None, "precision", "float32"), None),
]
LOADERS = ("load", "load_predictor", "from_output_dir")
# The earlier layout is read by from_output_dir only; the others find no
# model.json, and say so in one line.
_WORDS_OF_LOADER = {"legacy_predictor_json_absolute_checkpoint": {
    "load": ["no model.json"], "load_predictor": ["no model.json"]}}


@pytest.fixture(scope="module")
def answers(run):
  return {loader: _answers(loader, run["out"]) for loader in LOADERS}


def _mutated(run, tmp_path, mutation):
  directory = str(tmp_path / "run")
  shutil.copytree(run["out"], directory, symlinks=True,
                  ignore=shutil.ignore_patterns("*.tf_record",
                                                "events.out.*"))
  mutation(directory, run)
  return directory


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("case,mutation,words", MUTATIONS,
                         ids=[m[0] for m in MUTATIONS])
def test_mutation_is_refused_in_one_line_or_answers_the_same(
    run, answers, tmp_path, loader, case, mutation, words):
  words = _WORDS_OF_LOADER.get(case, {}).get(loader, words)
  directory = _mutated(run, tmp_path, mutation)
  if words is None:
    labels, probs = _answers(loader, directory)
    assert labels == answers[loader][0]
    np.testing.assert_array_equal(probs, answers[loader][1])
    return
  with pytest.raises(InputError) as e:
    _answers(loader, directory)
  message = str(e.value)
  assert "\n" not in message, message
  for word in words:
    assert word in message, (word, message)


def test_the_recorded_checkpoint_has_its_digests(run):
  record = json.load(open(os.path.join(run["out"], "model.json")))
  assert sorted(record["sha256"]) == sorted(
      ["bert_config.json", "vocab.txt", INDEX, DATA])


@pytest.mark.parametrize("case,words", [
    ("weights_symlinked_to_other_run", ["leads outside", "other"]),
    ("weights_copied_from_other_run", ["damaged", "model.ckpt-2"]),
    ("vocab_tokens_swapped", ["vocab.txt", "damaged"]),
    ("max_seq_length_string", ["model.json", "max_seq_length"])])
def test_the_scripts_do_predict_refuses_a_damaged_run(run, tmp_path, case,
                                                      words):
  mutation = dict((m[0], m[1]) for m in MUTATIONS)[case]
  directory = _mutated(run, tmp_path, mutation)
  options = copy.copy(run["options"])
  options.output_dir = directory
  options.do_train = False
  options.do_predict = True
  with pytest.raises(InputError) as e:
    pipeline.run(options)
  message = str(e.value)
  assert "\n" not in message, message
  for word in words:
    assert word in message, (word, message)
  assert not os.path.exists(os.path.join(directory, "test_results.tsv"))


def _same_weights_linked(d, run):
  """The checkpoint's files moved out of the run and linked back (a shared
  drive): the same bytes."""
  for name in (INDEX, DATA):
    target = os.path.join(run["outside"], "linked-" + name)
    shutil.copy(os.path.join(d, name), target)
    os.remove(os.path.join(d, name))
    os.symlink(target, os.path.join(d, name))


@pytest.mark.parametrize("loader", LOADERS)
def test_allow_outside_reads_a_linked_checkpoint_still_digest_checked(
    run, answers, tmp_path, loader):
  directory = _mutated(run, tmp_path, _same_weights_linked)
  with pytest.raises(InputError, match="leads outside"):
    _answers(loader, directory)
  labels, probs = _answers(loader, directory, allow_outside=True)
  assert labels == answers[loader][0]
  np.testing.assert_array_equal(probs, answers[loader][1])
  _other_weights(directory, run)  # Linked, but not the recorded bytes.
  with pytest.raises(InputError, match="damaged"):
    _answers(loader, directory, allow_outside=True)
