"""`SquadPredictor`: (question, context) -> answer text, score or no answer.

`predict` runs run_squad.py's own steps: the context split into words
(`split_context`), sliding windows (`convert_examples_to_features`), the
model, then n-best decoding (`postprocess.predict_example`, with
`get_final_text`). Each result is a dict:

  answer           the answer text ("" for no answer, SQuAD 2.0 models)
  score            start_logit + end_logit of the best non-null span
  probability      its softmax probability over the n-best list
  no_answer        bool (SQuAD 2.0: null score - score > threshold)
  null_score_diff  null score - score (SQuAD 2.0) or None

`export(dir)` writes a SavedModel `serving_default(question, context)`
(tf.string [batch] each) -> answer (tf.string), score, start_logit,
end_logit, null_score_diff (float32), no_answer (bool) and num_windows
(int32), all in graph (`squad.serving.squad_server`), over the same doc_stride windows as
`predict` (a long context: every window, the best span across them, the
lowest null score). It differs from `predict` in one documented way:
the answer text is cut from the context words by word-piece character
offsets; this equals `get_final_text` whenever normalisation keeps the
length of every answer word (no accents stripped, no [UNK], e.g. all ASCII
text); otherwise the whole words are returned.

Example:
  >>> p = SquadPredictor.from_output_dir("/tmp/squad_output")  # doctest: +SKIP
  >>> p.predict([("Who wrote it?", "It was written by Ann in 1901.")])  # doctest: +SKIP
  [{'answer': 'Ann', 'score': 11.2, 'probability': 0.93, ...}]
"""

import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import raw_text_serving
from bert_tf2.common import serving
from bert_tf2.predict import base
from bert_tf2.predict import batching
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from bert_tf2.squad import postprocess
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor


class SquadPredictor(base.Predictor):
  """A fine-tuned SQuAD model answering questions in Python (precision:
  see `base.Predictor`)."""

  kind = "squad"

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=384, doc_stride=128,
               max_query_length=64, n_best_size=20, max_answer_length=30,
               version_2_with_negative=False, null_score_diff_threshold=0.0,
               batch_size=8, precision="auto"):
    self.doc_stride = int(doc_stride)
    self.max_query_length = int(max_query_length)
    self.n_best_size = int(n_best_size)
    self.max_answer_length = int(max_answer_length)
    self.version_2_with_negative = bool(version_2_with_negative)
    self.null_score_diff_threshold = float(null_score_diff_threshold)
    super().__init__(bert_config_file, checkpoint, vocab_file, do_lower_case,
                     max_seq_length, batch_size, precision)
    self._logits = tf.function(self._forward, reduce_retracing=True)

  def build_model(self):
    return SquadModel(self.bert_config)

  def _forward(self, input_ids, input_mask, segment_ids):
    return self.model({"input_ids": input_ids, "input_mask": input_mask,
                       "segment_ids": segment_ids}, training=False)

  def predict(self, pairs):
    """Answers each (question, context) pair; see the module docstring.

    Raises:
      InputError: `pairs` is not a list of (str, str).
    """
    checked = raw_text_serving.check_texts(pairs, "questions", pairs=True)
    if any(context is None for _, context in checked):
      raise InputError("questions: every item must be a (question, "
                       "context) pair of str")
    examples = []
    for i, (question, context) in enumerate(checked):
      doc_tokens, _ = examples_lib.split_context(context)
      examples.append(examples_lib.SquadExample(
          qas_id=str(i), question_text=question, doc_tokens=doc_tokens))
    features = []
    features_lib.convert_examples_to_features(
        examples, self.tokenizer, self.max_seq_length, self.doc_stride,
        self.max_query_length, False, features.append)
    results = []
    if features:
      arrays = [[getattr(f, name) for f in features]
                for name in ("input_ids", "input_mask", "segment_ids")]
      starts, ends = batching.run_batches(self._logits, arrays,
                                          self.batch_size)
      results = [postprocess.RawResult(f.unique_id, s.tolist(), e.tolist())
                 for f, s, e in zip(features, starts, ends)]
    by_example = {}
    for feature, result in zip(features, results):
      by_example.setdefault(feature.example_index, []).append(
          (feature, result))
    return [self._decode(example, by_example.get(i, []))
            for i, example in enumerate(examples)]

  def _decode(self, example, windows):
    text, nbest, score_diff = postprocess.predict_example(
        example, [f for f, _ in windows], [r for _, r in windows],
        self.n_best_size, self.max_answer_length, self.do_lower_case,
        self.version_2_with_negative, self.null_score_diff_threshold)
    best = next((e for e in nbest if e["text"]), nbest[0])
    return {"answer": text,
            "score": best["start_logit"] + best["end_logit"],
            "probability": best["probability"],
            "start_logit": best["start_logit"],
            "end_logit": best["end_logit"],
            "no_answer": self.version_2_with_negative and text == "",
            "null_score_diff": score_diff}

  def export(self, export_dir):
    """Writes the serving SavedModel (see module docstring); returns it."""
    from bert_tf2.squad import serving as squad_serving  # pylint: disable=g-import-not-at-top
    server = squad_serving.squad_server(
        self.model, SquadPreprocessor(
            self.vocab_file, do_lower_case=self.do_lower_case,
            max_seq_length=self.max_seq_length, doc_stride=self.doc_stride,
            max_query_length=self.max_query_length),
        self.n_best_size, self.max_answer_length,
        self.version_2_with_negative, self.null_score_diff_threshold)
    return serving.write_saved_model(server, export_dir)


def text_answers(model, x, batch_size):
  """[{"answer", "score", ...}] per question of x = (questions, contexts)
  or [(question, context), ...] for a `SquadTextModel` (its `predict`: the
  SavedModel's graph)."""
  out = model.predict(x, batch_size=batch_size, verbose=0)
  return [{k: v[i] for k, v in out.items()}
          for i in range(len(out["answer"]))]


def text_export(model, export_dir):
  """SQuAD's raw-string SavedModel of a `SquadTextModel`."""
  return serving.write_saved_model(
      model._server(), export_dir)  # pylint: disable=protected-access
