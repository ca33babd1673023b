"""`SquadPredictor`: (question, context) -> answer text, score or no answer.

`predict` answers as run_squad.py's --do_predict: the windows come from
the text model's `SquadPreprocessor` (run_squad.py's doc_stride windows,
in graph: the same features as `convert_examples_to_features`, checked by
tests/squad/preprocessor_test.py), the model runs them in batches, and
each question's windows are decoded by run_squad.py's own n-best search
(`postprocess.predict_example`, with `get_final_text`), given each
window's pieces, their words and max-context flags from the
preprocessor's context analysis. Each result is a dict:

  answer           the answer text ("" for no answer, SQuAD 2.0 models)
  score            start_logit + end_logit of the best non-null span
  probability      its softmax probability over the n-best list
  no_answer        bool (SQuAD 2.0: null score - score > threshold)
  null_score_diff  null score - score (SQuAD 2.0) or None

`export(dir)` writes a SavedModel `serving_default(question, context)`
(tf.string [batch] each) -> answer (tf.string), score, start_logit,
end_logit, null_score_diff (float32), no_answer (bool) and num_windows
(int32), all in graph (`squad.serving.squad_server`), over the same
doc_stride windows as `predict` (a long context: every window, the best
span across them, the lowest null score). It differs from `predict` in
one documented way: the answer text is cut from the context words by
word-piece character offsets; this equals `get_final_text` whenever
normalisation keeps the length of every answer word (no accents stripped,
no [UNK], e.g. all ASCII text); otherwise the whole words are returned.

Example:
  >>> p = SquadPredictor.from_output_dir("/tmp/squad_output")  # doctest: +SKIP
  >>> p.predict([("Who wrote it?", "It was written by Ann in 1901.")])  # doctest: +SKIP
  [{'answer': 'Ann', 'score': 11.2, 'probability': 0.93, ...}]
"""

import types

import tensorflow as tf

import modeling
from bert_tf2.common import text_inputs
from bert_tf2.common import serving
from bert_tf2.predict import base
from bert_tf2.predict import batching
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import postprocess
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad import serving as squad_serving
from tokenization import windows as windows_lib


class SquadPredictor(base.Predictor):
  """A fine-tuned SQuAD model answering questions in Python (precision:
  see `base.Predictor`; "int8" runs an int8 ONNX Runtime export of the
  model, `bert_tf2.predict.int8`, written to `int8_dir` or a temporary
  directory)."""

  precisions = base.Predictor.precisions + ("int8",)
  kind = "squad"

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=384, doc_stride=128,
               max_query_length=64, n_best_size=20, max_answer_length=30,
               version_2_with_negative=False, null_score_diff_threshold=0.0,
               batch_size=8, precision=None, int8_dir=None,
               recorded_precision="float32"):
    self.doc_stride = int(doc_stride)
    self.max_query_length = int(max_query_length)
    self.n_best_size = int(n_best_size)
    self.max_answer_length = int(max_answer_length)
    self.version_2_with_negative = bool(version_2_with_negative)
    self.null_score_diff_threshold = float(null_score_diff_threshold)
    super().__init__(bert_config_file, checkpoint, vocab_file, do_lower_case,
                     max_seq_length, batch_size, precision,
                     recorded_precision)
    int8 = self.precision == "int8"
    self._logits = self._model_function(
        self._onnx_forward if int8 else self._forward, int8, int8_dir)
    self.preprocessor = SquadPreprocessor(
        vocab_file, do_lower_case=do_lower_case,
        max_seq_length=max_seq_length, doc_stride=doc_stride,
        max_query_length=max_query_length)
    spec = tf.TensorSpec([None], tf.string)
    self._windows = tf.function(
        lambda q, c: self.preprocessor((q, c)), input_signature=[spec, spec],
        autograph=False)

  def build_model(self,
                  attention_layout=modeling.attention.DEFAULT_ATTENTION_LAYOUT):
    # SquadModel's encoder has the default layout, the one the ONNX export
    # asks for (`base.Predictor._onnx_model`).
    if attention_layout != modeling.attention.DEFAULT_ATTENTION_LAYOUT:
      raise ValueError("SquadModel builds attention_layout=%r only"
                       % modeling.attention.DEFAULT_ATTENTION_LAYOUT)
    return SquadModel(self.bert_config)

  def _forward(self, input_ids, input_mask, segment_ids, model=None):
    return (self.model if model is None else model)(
        {"input_ids": input_ids, "input_mask": input_mask,
         "segment_ids": segment_ids}, training=False)

  def _onnx_forward(self, input_ids, input_mask, segment_ids):
    return tuple(self._forward(input_ids, input_mask, segment_ids,
                               model=self._onnx_model()))

  def predict(self, x):
    """Answers each (question, context) pair of x; see the module
    docstring. x: a list of (question, context) pairs, or the columns
    (questions, contexts): SQuAD's one input contract on every path
    (`common.text_inputs.check_examples`).

    Raises:
      InputError: `x` is not such a list (one line naming the item).
    """
    checked = text_inputs.check_examples(x, "x",
                                         text_inputs.QUESTION_CONTEXT)
    if not checked:
      return []
    out = self._windows(tf.constant([q for q, _ in checked], tf.string),
                        tf.constant([c for _, c in checked], tf.string))
    out = {k: (v.to_list() if isinstance(v, tf.RaggedTensor) else v.numpy())
           for k, v in out.items()}
    starts, ends = batching.run_batches(
        self._logits, [out[k] for k in batching.FEATURES], self.batch_size)
    # An empty context's window holds no context: the original makes none.
    windows = [[] for _ in checked]
    for w, example in enumerate(out["example_index"]):
      if out["window_length"][w] > 0:
        windows[example].append(w)
    answers = []
    for i, found in enumerate(windows):
      words = [t.decode("utf-8") for t in out["context_words"][i]]
      example = examples_lib.SquadExample(
          qas_id=str(i), question_text=checked[i][0], doc_tokens=words)
      features = self._window_features(out, i, found)
      results = [postprocess.RawResult(w, starts[w].tolist(),
                                       ends[w].tolist()) for w in found]
      answers.append(self._decode(example, features, results))
    return answers

  def _window_features(self, out, example, found):
    """run_squad.py's InputFeatures fields that the decoding reads (tokens,
    token_to_orig_map, token_is_max_context) of an example's windows
    `found`, from the preprocessor's outputs."""
    piece_word = out["piece_word"][example]
    spans = [(int(out["window_start"][w]), int(out["window_length"][w]))
             for w in found]
    best = windows_lib.max_context_windows(spans, len(piece_word))
    features = []
    for k, w in enumerate(found):
      (start, length), offset = spans[k], int(out["window_offset"][w])
      ids = out["input_ids"][w][:int(out["input_mask"][w].sum())]
      features.append(types.SimpleNamespace(
          unique_id=w, example_index=example,
          tokens=[self.tokenizer.inv_vocab[int(t)] for t in ids],
          token_to_orig_map={offset + j: piece_word[start + j]
                             for j in range(length)},
          token_is_max_context={offset + j: best[start + j] == k
                                for j in range(length)}))
    return features

  def _decode(self, example, features, results):
    text, nbest, score_diff = postprocess.predict_example(
        example, features, results, self.n_best_size,
        self.max_answer_length, self.do_lower_case,
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
    server = squad_serving.squad_server(
        self.model, self.preprocessor,
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
