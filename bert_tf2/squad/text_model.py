"""SquadTextModel: SQuAD from raw strings, `fit` / `evaluate` / `predict`.

  model = squad_text_model("uncased_L-12_H-768_A-12", max_seq_length=384,
                           doc_stride=128)
  model.compile(optimizer=keras.optimizers.Adam(3e-5))   # run_squad's loss
  model.fit(x=(questions, contexts), y=answers, epochs=2, batch_size=32)
  model.evaluate((questions, contexts), answers)         # loss
  model.predict((questions, contexts))["answer"]         # answer strings
  model.answer_metrics((questions, contexts), answers)   # exact_match, f1

`answers`: one per question, in the forms of `squad.raw_answers` (None:
unanswerable).

Training: `SquadPreprocessor` turns each batch of examples into
run_squad.py's windows with their start/end positions (in a `tf.data`
map); the windows are cached in memory, shuffled and batched: the model
trains on windows as the original's records. Prediction: the serving
signature's graph (`squad.serving.squad_server`). Called on a feature dict
(windows), the model returns the span logits of its `task` (`SquadModel`).
"""

import keras
import numpy as np
import tensorflow as tf

import modeling

from bert_tf2.common import raw_text_serving
from bert_tf2.common.text_model import TextModel
from bert_tf2.squad import evaluate as evaluate_lib
from bert_tf2.squad import raw_answers
from bert_tf2.squad import serving
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from modeling import layers

# Examples per map call of the training pipeline (windows are made per
# batch of examples, then unbatched).
_EXAMPLES_PER_MAP = 64


@layers.serializable
class SquadTextModel(TextModel):
  """`SquadModel` on raw (question, context) pairs (see module)."""

  trims_padding = False  # Start/end logits per piece of full windows.

  def __init__(self, preprocessor, task, n_best_size=20,
               max_answer_length=30, version_2_with_negative=False,
               null_score_diff_threshold=0.0, **kwargs):
    super().__init__(preprocessor, task, **kwargs)
    self.n_best_size = int(n_best_size)
    self.max_answer_length = int(max_answer_length)
    self.version_2_with_negative = bool(version_2_with_negative)
    self.null_score_diff_threshold = float(null_score_diff_threshold)

  def serving_settings(self):
    return dict(n_best_size=self.n_best_size,
                max_answer_length=self.max_answer_length,
                version_2_with_negative=self.version_2_with_negative,
                null_score_diff_threshold=self.null_score_diff_threshold)

  def _server(self):
    # Made per trace, not kept: an attribute would be tracked by Keras.
    server = serving.server(self.task, self.preprocessor,
                            **self.serving_settings())
    server.serve = server.text_signature(serving.TEXT_INPUTS)
    return server

  def call(self, inputs, training=False):
    if isinstance(inputs, dict):    # Windows (fit, evaluate).
      return self.task(inputs, training=training)
    return self._server().answer(raw_text_serving.check_text_inputs(
        *inputs, names=list(serving.TEXT_INPUTS)))

  def _windows(self, x, y, batch_size, shuffle=False):
    """(questions, contexts), answers -> a Dataset of window batches."""
    questions, contexts = raw_answers.pair_columns(x)
    starts, texts = raw_answers.answer_columns(contexts, y)
    data = tf.data.Dataset.from_tensor_slices(
        (questions, contexts, np.array(starts, np.int64), texts))
    data = data.batch(_EXAMPLES_PER_MAP).map(
        tf.autograph.experimental.do_not_convert(
            self.preprocessor.training_windows)).unbatch().cache()
    # One pass (it fills the cache) counts the windows, so that Keras knows
    # the steps per epoch (progress bar, no "ran out of data" warning).
    count = int(data.reduce(np.int64(0),
                            tf.autograph.experimental.do_not_convert(
                                lambda n, _: n + 1)))
    data = data.apply(tf.data.experimental.assert_cardinality(count))
    if shuffle:
      data = data.shuffle(10000, seed=None, reshuffle_each_iteration=True)
    data = data.map(tf.autograph.experimental.do_not_convert(
        lambda f: (f, (f["start_positions"], f["end_positions"]))))
    return data.batch(batch_size or 32)

  def fit(self, x=None, y=None, batch_size=None, validation_data=None,
          shuffle=True, **kwargs):
    """x=(questions, contexts), y=answers (module docstring)."""
    self.check_trainable()
    if isinstance(validation_data, tuple) and len(validation_data) == 2:
      validation_data = self._windows(*validation_data, batch_size)
    return keras.Model.fit(self, self._windows(x, y, batch_size, shuffle),
                           validation_data=validation_data, shuffle=False,
                           **kwargs)

  def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
    """The loss (and compiled metrics) over the windows of (x, y)."""
    return keras.Model.evaluate(self, self._windows(x, y, batch_size),
                                **kwargs)

  def examples(self, x, what="x"):
    """x as the columns (questions, contexts) (`raw_answers.pair_columns`);
    [] stays [] (`TextPredictor` answers it)."""
    if isinstance(x, list) and not x:
      return x
    del what  # x, as `predict` names it.
    return raw_answers.pair_columns(x)

  def predict(self, x, batch_size=None, **kwargs):
    """Answers of x, a list of (question, context) pairs or the columns
    (questions, contexts): dict of [batch] arrays."""
    questions, contexts = raw_answers.pair_columns(x)
    data = tf.data.Dataset.from_tensor_slices(((questions, contexts),))
    out = keras.Model.predict(self, data.batch(batch_size or 32), **kwargs)
    out["answer"] = np.array([a.decode("utf-8") for a in out["answer"]],
                             dtype=object)
    return out

  def answer_metrics(self, x, y, batch_size=None):
    """SQuAD's exact match and F1 (x 100) of `predict(x)` against y."""
    predicted = self.predict(x, batch_size=batch_size, verbose=0)["answer"]
    golds = [raw_answers.gold_texts(a) for a in y]
    version_2 = self.version_2_with_negative
    em = f1 = 0.0
    for prediction, gold in zip(predicted, golds):
      if version_2:   # The official v2 rule for empty golds.
        gold = [g for g in gold if evaluate_lib.normalize_answer(g)] or [""]
      em += max(evaluate_lib.exact_match_score(prediction, g) for g in gold)
      f1 += max(evaluate_lib.f1_score(prediction, g, version_2)
                for g in gold)
    n = max(len(golds), 1)
    return {"exact_match": 100.0 * em / n, "f1": 100.0 * f1 / n}

  def original_loss(self, x, y, y_pred, sample_weight, training):
    """run_squad's loss; x are the windows' features (`fit` made them)."""
    return self.task.compute_loss(x=x, y=y, y_pred=y_pred,
                                  sample_weight=sample_weight,
                                  training=training)

  def get_config(self):
    config = super().get_config()
    config.update(self.serving_settings())
    return config


def build(cls, directory, max_seq_length=384, **kwargs):
  """`squad_text_model` as `bert_tf2.models.text_model` calls it."""
  del cls  # Always SquadModel.
  return squad_text_model(directory, max_seq_length=max_seq_length, **kwargs)


def squad_text_model(directory, max_seq_length=384, doc_stride=128,
                     max_query_length=64, do_lower_case=None, n_best_size=20,
                     max_answer_length=30, version_2_with_negative=False,
                     null_score_diff_threshold=0.0, **kwargs):
  """`SquadTextModel` of `SquadModel.from_checkpoint(directory)` (an
  original or a Hugging Face BERT directory); the other arguments as
  run_squad.py's flags."""
  task = SquadModel.from_checkpoint(directory, do_lower_case=do_lower_case,
                                    **kwargs)
  found = task.pretrained
  modeling.check_sequence_length(found.config, max_seq_length)
  pre = SquadPreprocessor(found.vocab_file, do_lower_case=found.do_lower_case,
                          max_seq_length=max_seq_length,
                          doc_stride=doc_stride,
                          max_query_length=max_query_length)
  return SquadTextModel(pre, task, n_best_size=n_best_size,
                        max_answer_length=max_answer_length,
                        version_2_with_negative=version_2_with_negative,
                        null_score_diff_threshold=null_score_diff_threshold)
