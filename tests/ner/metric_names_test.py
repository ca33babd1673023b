"""run_ner's evaluation names are known up front and present in every
evaluation: a per-type --early_stopping_metric (eval_LOC_f1) must not fail
mid-training when a dev evaluation has no LOC at all."""

import numpy as np

from bert_tf2.ner import job as ner_job
from bert_tf2.ner import metrics
from bert_tf2.runner import periodic_eval
from tests.ner import periodic_eval_test


def test_types_without_chunks_are_reported_as_zero():
  result = metrics.evaluate([["B-PER", "O"]], [["B-PER", "O"]],
                            metrics.entity_types(["O", "B-PER", "I-LOC"]))
  assert result["LOC"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                           "correct": 0, "predicted": 0, "gold": 0}
  assert result["PER"]["f1"] == 1.0


class _AllOutside(object):
  """An estimator stand-in that tags every word O (label id of "O")."""

  def __init__(self, label_id, seq_length):
    self.row = np.full([seq_length], label_id)

  def predict(self, input_fn):
    batches = input_fn({"batch_size": 4})
    for batch in batches:
      for _ in range(int(batch["input_ids"].shape[0])):
        yield {"label_predictions": self.row}

  def latest_checkpoint(self):
    return "out/model.ckpt-3"


def test_every_evaluation_has_the_names_checked_up_front(tmp_path):
  o = periodic_eval_test.options(tmp_path)
  data = tmp_path / "data"
  # A dev set without any LOC, a model that predicts none: eval_LOC_f1
  # must still be there (0), as metric_names promised before training.
  (data / "dev.txt").write_text("bob B-PER\nis O\nnice O\n\nnice O\n")
  (tmp_path / "out").mkdir()
  job = ner_job.NerJob(o)
  job.prepare()
  names = job.metric_names(None)
  assert "eval_LOC_f1" in names and "eval_PER_f1" in names
  path = str(tmp_path / "eval.tf_record")
  job.write_records("eval", path)
  from bert_tf2.finetune import records  # pylint: disable=g-import-not-at-top
  input_fn = records.input_fn(path, job.record_spec("eval"), o.max_seq_length,
                              training=False)
  result = job.evaluate(_AllOutside(job.label_list.index("O"),
                                    o.max_seq_length), input_fn, None)
  assert sorted(set(result) - {"global_step"}) == names
  assert result["eval_LOC_f1"] == 0.0 and result["eval_LOC_gold"] == 0
  stopping = periodic_eval.EarlyStopping("eval_LOC_f1", patience=1)
  evaluations = periodic_eval.PeriodicEval(str(tmp_path / "out"), 1,
                                           stopping)
  assert evaluations.after_evaluation(result, None) is False
