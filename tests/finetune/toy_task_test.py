"""A task added from this file alone is trained, loaded and served on every
path (issue 62, item 4: adding a task is its package plus one registry
line).

The toy task: a sentence's length, regressed from its [CLS] vector
(`ToyLengthModel`: `modeling.BertModel` + a one-output head, mean squared
error to the word count / 10). It is written here and registered with one
line (`tasks.register(tasks.task("toy_length", ToyLengthModel))`); nothing
outside this file names it. What it implements:

  model:  __init__, call, loss_and_outputs, predict_outputs (and
          get_config for .keras files: unused here)
  job:    task_name, model_class (two attributes), record_spec,
          write_records (its data), predict (its --do_predict file)
Everything else is the library's default: the job's checks, config and
tokenizer (`Job.prepare`), its runner task (`Job.build_task`), its
model.json (`Job.model_record`), its `BertPreprocessor` and SavedModel
(`Job.server`, `common.serving.server`); the registry's raw-string
model builder (`common.text_model.build`), answers and export
(`tasks.model_answers`, `common.serving.server`) and model.json schema
(casing and length).

One tiny random-weight BERT is trained by the fine-tuning driver (two
steps, module fixture), then the same texts go through:
  script     the driver's --do_predict (test_results.tsv)
  exported   the driver's --export_dir SavedModel, in a fresh process that
             imports only tensorflow and tensorflow_text
  keras      `bert_tf2.models.load(output_dir).predict`
  predictor  `bert_tf2.models.load_predictor(output_dir).predict`
  export     `load_predictor(...).export(dir)`, in a fresh process too
Scores must agree to 1e-5 on every path, and a load reads the run's
model.json once (`artifact.read_once`).
"""

import json
import os
import random

from absl import flags
import keras
import numpy as np
import pytest
import tensorflow as tf

import modeling
from bert_tf2 import models
from bert_tf2 import tasks
from bert_tf2.common import InputError
from bert_tf2.common import artifact
from bert_tf2.common import task_model
from bert_tf2.finetune import driver
from bert_tf2.finetune import records
from bert_tf2.finetune import settings_with_defaults
from bert_tf2.finetune.job import Job
from bert_tf2.runner import finetuning_flags
from modeling import inputs as model_inputs
from tests.classifier import tiny_task
from tests.common import cross_path

pytestmark = pytest.mark.slow  # A short training run and two SavedModels.

SEQ = 16
TEXTS = ["w1", "w2 w3 w4 w5 w6 w7 w8 w9 w10 w11", "", "w3 alpha w4",
         " ".join("w%d" % i for i in range(30)), "Café w5 w6."]


class ToyLengthModel(task_model.TaskModel):
  """[CLS] vector -> one score: the text's word count / 10 (trained with
  mean squared error)."""

  serving_output_names = ("score",)

  def __init__(self, bert_config, **kwargs):
    kwargs.setdefault("name", "toy_length")
    super().__init__(**kwargs)
    if isinstance(bert_config, dict):
      bert_config = modeling.BertConfig.from_dict(bert_config)
    self.bert_config = bert_config
    self.bert = modeling.BertModel(bert_config, dtype=self.dtype_policy)
    self.head = modeling.ClassificationHead(bert_config, 1, dropout_prob=0.0,
                                            dtype=self.dtype_policy)
    self.built = True

  def call(self, features, training=False):
    outputs = self.bert(model_inputs.encoder_inputs(features),
                        training=training)
    return tf.cast(self.head(outputs["pooled_output"])[:, 0], tf.float32)

  def loss_and_outputs(self, features, training=False):
    score = self(features, training=training)
    loss = tf.reduce_mean(tf.square(score - features["target"]))
    return loss, {"score": score}

  def predict_outputs(self, features):
    return {"score": self(features, training=False)}

  def get_config(self):
    return dict(self.base_config(), bert_config=self.bert_config.to_dict())


# The one line that adds the task.
tasks.register(tasks.task("toy_length", ToyLengthModel))


def _words(text):
  return len(text.split())


class ToyLengthJob(Job):
  """Texts (one a line, data_dir/<split>.txt) -> records of the run's own
  `BertPreprocessor` and the target word count / 10."""

  task_name = "toy_length"
  model_class = ToyLengthModel

  def texts(self, split):
    path = os.path.join(self.settings.data_dir, "%s.txt" % split)
    with open(path, encoding="utf-8") as f:
      return f.read().split("\n")[:-1]

  def record_spec(self, split):
    del split
    return records.sequence_spec(
        self.settings.max_seq_length,
        ["input_ids", "input_mask", "segment_ids"], {"target": tf.float32})

  def write_records(self, split, path, pad_to=None):
    texts = self.texts(split)
    features = self.preprocessor_class.from_record(
        self.settings.vocab_file, self.model_record())(tf.constant(texts))
    rows = ({"input_ids": features["input_ids"][i].numpy(),
             "input_mask": features["input_mask"][i].numpy(),
             "segment_ids": features["segment_ids"][i].numpy(),
             "target": _words(text) / 10.0}
            for i, text in enumerate(texts))
    return records.write_records(path, rows)

  def predict(self, estimator, input_fn):
    path = os.path.join(self.settings.output_dir, "test_results.tsv")
    with open(path, "w") as f:
      for row in estimator.predict(input_fn):
        f.write("%r\n" % float(row["score"]))


def _define_flags(flag_values):
  flags.DEFINE_string("data_dir", None, "", flag_values=flag_values)
  flags.DEFINE_string("export_dir", None, "", flag_values=flag_values)
  finetuning_flags.define_finetuning_flags(flag_values)


@pytest.fixture(scope="module")
def trained(bfloat16_cpu, tmp_path_factory):
  # On a faked bfloat16 CPU (`bfloat16_cpu`): a default load that followed
  # the CPU, not the run's recorded precision, would answer in bfloat16.
  del bfloat16_cpu
  keras.utils.set_random_seed(0)
  root = str(tmp_path_factory.mktemp("toy_task"))
  data_dir = os.path.join(root, "data")
  os.makedirs(data_dir)
  rng = random.Random(3)
  train = [" ".join(rng.sample(tiny_task.WORDS, rng.randint(1, 12)))
           for _ in range(32)]
  for split, texts in (("train", train), ("predict", TEXTS)):
    with open(os.path.join(data_dir, split + ".txt"), "w",
              encoding="utf-8") as f:
      f.write("".join(t + "\n" for t in texts))
  vocab_file, config_file = tiny_task.write_model_files(root)
  with open(config_file, "w") as f:  # Wide weights: answers far apart.
    json.dump(dict(tiny_task.CONFIG, initializer_range=0.5), f)
  settings = settings_with_defaults(
      _define_flags, data_dir=data_dir, vocab_file=vocab_file,
      bert_config_file=config_file, output_dir=os.path.join(root, "out"),
      do_train=True, do_predict=True, max_seq_length=SEQ,
      train_batch_size=16, predict_batch_size=4, learning_rate=1e-4,
      num_train_epochs=1.0, save_checkpoints_steps=1000, precision="float32",
      export_dir=os.path.join(root, "export"))
  driver.run(ToyLengthJob(settings))
  with open(os.path.join(settings.output_dir, "test_results.tsv")) as f:
    script = [float(line) for line in f]
  return settings, np.array(script, np.float32)


_SERVE = r"""
out = serve(text=tf.constant(args["texts"]))
print("RESULT" + json.dumps({k: v.numpy().tolist() for k, v in out.items()}))
"""


def _served(export_dir):
  return np.array(cross_path.serve_in_fresh_process(
      export_dir, _SERVE, {"texts": TEXTS})["score"], np.float32)


def test_the_run_records_the_toy_task(trained):
  settings, script = trained
  found = artifact.read(settings.output_dir)
  assert found.task == "toy_length"
  assert found.preprocessor == {"do_lower_case": True, "max_seq_length": SEQ}
  assert found.model == {} and found.checkpoint.endswith("model.ckpt-2")
  assert script.shape == (len(TEXTS),)
  assert np.ptp(script) > 1e-2  # Answers that tell the texts apart.


def test_every_path_gives_the_scripts_answers(trained, tmp_path):
  settings, script = trained
  model = models.load(settings.output_dir)
  assert type(model.task) is ToyLengthModel  # pylint: disable=unidiomatic-typecheck
  keras_scores = model.predict(TEXTS, verbose=0)
  predictor = models.load_predictor(settings.output_dir, batch_size=4)
  answers = predictor.predict(TEXTS)
  assert [sorted(a) for a in answers] == [["score"]] * len(TEXTS)
  predictor_scores = np.array([a["score"] for a in answers], np.float32)
  exported = _served(settings.export_dir)
  again = _served(predictor.export(str(tmp_path / "again")))
  for name, scores in (("keras", keras_scores),
                       ("predictor", predictor_scores),
                       ("exported", exported), ("export", again)):
    np.testing.assert_allclose(scores, script, atol=1e-5, err_msg=name)
  # Control: the same run loaded in bfloat16 answers otherwise.
  other = models.load(settings.output_dir, precision="bfloat16")
  bf16_scores = other.predict(TEXTS, verbose=0)
  assert bf16_scores.shape == script.shape
  assert np.abs(bf16_scores - script).max() > 1e-4


def test_a_load_reads_model_json_once(trained, monkeypatch):
  settings, script = trained
  reads = []
  read = artifact._read  # pylint: disable=protected-access
  monkeypatch.setattr(artifact, "_read", lambda d: reads.append(d) or read(d))
  predictor = models.load_predictor(settings.output_dir)
  assert reads == [settings.output_dir]
  np.testing.assert_allclose([a["score"] for a in predictor.predict(TEXTS)],
                             script, atol=1e-5)
  artifact.read(settings.output_dir)  # Outside a load: read again.
  assert len(reads) == 2


def test_the_registry_knows_the_toy_task_by_name_and_class():
  assert tasks.get("toy_length").model_class is ToyLengthModel
  assert models.task_of(ToyLengthModel) == "toy_length"
  assert models.TASKS["toy_length"] is ToyLengthModel
  tasks.register(tasks.task("toy_length", ToyLengthModel))  # The same.
  with pytest.raises(ValueError, match="registered already"):
    tasks.register(tasks.task("toy_length", ToyLengthModel,
                              answers=lambda model, x, batch_size: []))


def test_a_toy_record_with_a_key_of_another_task_is_refused(trained,
                                                             tmp_path):
  settings, _ = trained
  copy = cross_path.without_setting(settings.output_dir, "preprocessor",
                                    "do_lower_case", str(tmp_path / "run"))
  path = os.path.join(copy, "model.json")
  with open(path) as f:
    record = json.load(f)
  record["model"]["num_labels"] = 2  # The classifier's, not the toy's.
  with open(path, "w") as f:
    json.dump(record, f)
  with pytest.raises(InputError, match=r'"model.num_labels" is 2; expected '
                     r"no such key"):
    models.load(copy)
