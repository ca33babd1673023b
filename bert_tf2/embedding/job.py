"""run_embedding.py's job on the fine-tuning driver.

Evaluation adds to eval_loss and eval_in_batch_accuracy the retrieval of
each dev anchor's positive among all dev positives (and negatives):
recall@1, recall@10, mrr. test_results.tsv: each test anchor's top 10
"index:cosine" among the test positives.
"""

import functools
import os

import numpy as np
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.embedding import pairs as pairs_lib
from bert_tf2.embedding import search
from bert_tf2.embedding import serving
from bert_tf2.embedding.model import BiEncoder
from bert_tf2.finetune import checks
from bert_tf2.finetune import records
from bert_tf2.finetune.job import Job
from bert_tf2.runner.task import ModelTask

RETRIEVAL_METRICS = ("recall@1", "recall@10", "mrr")


def validate(s):
  """Checks flags up front; returns (bert_config, tokenizer)."""
  checks.check_settings(s, dropout=False)
  if s.scale <= 0:
    raise InputError("--scale=%s: must be > 0" % s.scale)
  if s.do_train and s.train_batch_size < 2:
    raise InputError("--train_batch_size=%d: in-batch negatives need at "
                     "least 2" % s.train_batch_size)
  return checks.config_and_tokenizer(s)


class EmbeddingJob(Job):
  """Bi-encoder training from pairs (see the module docstring)."""

  shuffle_buffer = 1000
  task_metrics = False  # evaluate adds the retrieval metrics.
  server = staticmethod(serving.server)

  def prepare(self):
    s = self.settings
    self.bert_config, self.tokenizer = validate(s)
    self.pairs = {}
    for split, flag, path in checks.split_files(s):
      self.pairs[split] = pairs_lib.read_pairs(path)
      if split == "train":
        checks.check_train_steps(s, "--%s=%s" % (flag, path),
                                 len(self.pairs[split]))
    # One record layout for every split: the first split's sides.
    with_negatives = {split: pairs[0].negative is not None
                      for split, pairs in self.pairs.items()}
    if len(set(with_negatives.values())) > 1:
      raise InputError("%s: hard negatives in some files and not in others "
                       "(%s); give them in all or none" % (
                           ", ".join("--%s" % checks.SPLIT_FILES[k]
                                     for k in sorted(with_negatives)),
                           ", ".join("%s: %s" % (k, "yes" if v else "no")
                                     for k, v in sorted(
                                         with_negatives.items()))))

  def build_task(self):
    s = self.settings
    return ModelTask(functools.partial(BiEncoder, self.bert_config,
                                       s.pooling, s.normalize, s.scale))

  def model_record(self):
    s = self.settings
    return {"task": "embedding",
            "preprocessor": dict(do_lower_case=bool(s.do_lower_case),
                                 max_seq_length=s.max_seq_length),
            "model": dict(pooling_mode=s.pooling, normalize=bool(s.normalize),
                          scale=float(s.scale))}

  def metric_names(self, task):
    return sorted(set(task.create_metrics()) | {"loss"} |
                  set(RETRIEVAL_METRICS))

  def record_spec(self, split):
    # One layout for every split: the first split's sides.
    first = self.pairs["train" if "train" in self.pairs
                       else sorted(self.pairs)[0]][0]
    sides = pairs_lib.SIDES if first.negative is not None else (
        pairs_lib.SIDES[:2])
    names = ["%s_%s" % (side, k) for side in sides
             for k in ("input_ids", "input_mask", "segment_ids")]
    return records.sequence_spec(self.max_seq_length, names)

  def write_records(self, split, path, pad_to=None):
    if pad_to:
      raise InputError("--use_tpu: run_embedding.py evaluates on CPU/GPU "
                       "only (in-batch negatives need unpadded batches)")
    arrays = pairs_lib.pair_features(self.pairs[split], self.tokenizer,
                                     self.max_seq_length)
    n = len(self.pairs[split])
    return records.write_records(
        path, ({k: v[i] for k, v in arrays.items()} for i in range(n)))

  def _embed(self, estimator, texts):
    feats = pairs_lib.text_features(texts, self.tokenizer,
                                    self.max_seq_length)

    def input_fn(params):
      return tf.data.Dataset.from_tensor_slices(feats).batch(
          params["batch_size"])
    return np.stack([p["embeddings"] for p in estimator.predict(input_fn)])

  def retrieve(self, estimator, split, k=10):
    """(scores, ids [num_anchors, k], gold ids) over the split's corpus:
    its positives and negatives, each text once."""
    pairs = self.pairs[split]
    corpus = list(dict.fromkeys([p.positive for p in pairs] +
                                [p.negative for p in pairs if p.negative]))
    index = {text: i for i, text in enumerate(corpus)}
    gold = np.array([index[p.positive] for p in pairs])
    queries = self._embed(estimator, [p.anchor for p in pairs])
    scores, ids = search.top_k(queries, self._embed(estimator, corpus), k)
    return scores, ids, gold

  def evaluate(self, estimator, input_fn, steps):
    result = dict(estimator.evaluate(input_fn, steps=steps))
    _, ids, gold = self.retrieve(estimator, "eval")
    result.update(search.retrieval_metrics(ids, gold, ks=(1, 10)))
    return result

  def predict(self, estimator, input_fn):
    del input_fn  # Anchors and corpus are embedded separately.
    scores, ids, _ = self.retrieve(estimator, "predict")
    path = os.path.join(self.output_dir, "test_results.tsv")
    with atomic_open(path) as f:
      for row_ids, row_scores in zip(ids, scores):
        f.write("\t".join("%d:%r" % (i, float(v))
                          for i, v in zip(row_ids, row_scores)) + "\n")

