"""`SquadPredictor`: (question, context) -> answer text, score or no answer.

`text_answers` runs the task's text model (`SquadTextModel`, the graph of
its SavedModel) and gives one dict per question:

  answer           the answer text ("" for no answer, SQuAD 2.0 models)
  score            start_logit + end_logit of the best non-null span
  start_logit, end_logit   that span's
  no_answer        bool (SQuAD 2.0: null score - score > threshold)
  null_score_diff  null score - score (SQuAD 2.0)
  num_windows      the windows the context made

Example:
  >>> p = SquadPredictor.from_output_dir("/tmp/squad_output")  # doctest: +SKIP
  >>> p.predict([("Who wrote it?", "It was written by Ann in 1901.")])  # doctest: +SKIP
  [{'answer': 'Ann', 'score': 11.2, ...}]
"""

from bert_tf2.common import serving
from bert_tf2.predict import text
from bert_tf2.squad import serving as squad_serving
from bert_tf2.squad.model import SquadModel
from bert_tf2.squad.preprocessor import SquadPreprocessor
from bert_tf2.squad.text_model import SquadTextModel


class SquadPredictor(text.TextPredictor):
  """A fine-tuned SQuAD model of a run's files: the arguments are
  run_squad.py's flags; precision: None (the recorded one), "float32",
  "bfloat16", "float16", "auto" or "int8" (ONNX Runtime,
  `bert_tf2.predict.int8_task`; its .onnx file kept in `int8_dir`)."""

  kind = "squad"

  def __init__(self, bert_config_file, checkpoint, vocab_file,
               do_lower_case=True, max_seq_length=384, doc_stride=128,
               max_query_length=64, n_best_size=20, max_answer_length=30,
               version_2_with_negative=False, null_score_diff_threshold=0.0,
               batch_size=8, precision=None, int8_dir=None,
               recorded_precision="float32"):
    preprocessor = SquadPreprocessor(
        vocab_file, do_lower_case=do_lower_case,
        max_seq_length=max_seq_length, doc_stride=doc_stride,
        max_query_length=max_query_length)
    self.bert_config = text.checked_config(bert_config_file, preprocessor)
    model, self.precision = text.checkpoint_model(
        preprocessor, lambda: SquadModel(self.bert_config), checkpoint,
        type(self).__name__, precision, recorded_precision,
        text.onnx_file_of(False, int8_dir), text_model=SquadTextModel,
        n_best_size=n_best_size, max_answer_length=max_answer_length,
        version_2_with_negative=version_2_with_negative,
        null_score_diff_threshold=null_score_diff_threshold)
    super().__init__(model, text_answers,
                     serving.exporter(squad_serving.server), batch_size)


def text_answers(model, x, batch_size):
  """[{"answer", "score", ...}] per question of x = (questions, contexts)
  or [(question, context), ...] for a `SquadTextModel`."""
  out = model.predict(x, batch_size=batch_size, verbose=0)
  return [{k: v[i] for k, v in out.items()}
          for i in range(len(out["answer"]))]
