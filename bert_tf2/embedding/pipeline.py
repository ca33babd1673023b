"""What run_embedding.py does, flag values in, files out.

  validate -> pairs -> runner.Estimator (multiple-negatives ranking loss)
  -> model.ckpt-STEP, eval_results.txt (eval_loss, eval_in_batch_accuracy,
  recall@1, recall@10, mrr: each dev anchor's positive ranked among all dev
  positives and negatives), test_results.tsv (each test anchor's top 10
  "index:cosine" among the test positives) [-> raw-string SavedModel]
"""

import os

from absl import logging
import numpy as np
import tensorflow as tf

from bert_tf2 import runner
from bert_tf2.common import InputError
from bert_tf2.common import atomic_open
from bert_tf2.common import setup_checks
from bert_tf2.embedding import pairs as pairs_lib
from bert_tf2.embedding import search
from bert_tf2.embedding.task import BiEncoderTask
from bert_tf2.runner.checkpoints import refuse_other_model


def validate(o):
  """Checks flags and files up front; returns (bert_config, tokenizer)."""
  if not (o.do_train or o.do_eval or o.do_predict or o.export_dir):
    raise InputError("At least one of --do_train, --do_eval, --do_predict "
                     "or --export_dir must be set")
  for flag in ("data_dir", "output_dir"):
    if not getattr(o, flag):
      raise InputError("--%s is required" % flag)
  if not tf.io.gfile.isdir(o.data_dir):
    raise InputError("--data_dir=%s: not a directory" % o.data_dir)
  if o.max_seq_length < 3:
    raise InputError("--max_seq_length=%d: must be at least 3" %
                     o.max_seq_length)
  if o.scale <= 0:
    raise InputError("--scale=%s: must be > 0" % o.scale)
  for flag in ("train_batch_size", "eval_batch_size", "predict_batch_size"):
    if getattr(o, flag) < 1:
      raise InputError("--%s=%d: must be >= 1" % (flag, getattr(o, flag)))
  if o.do_train and o.train_batch_size < 2:
    raise InputError("--train_batch_size=%d: in-batch negatives need at "
                     "least 2" % o.train_batch_size)
  if o.export_dir:
    from bert_tf2.predict import serving  # pylint: disable=g-import-not-at-top
    serving.check_export_dir(o.export_dir)
  return setup_checks.load_config_and_tokenizer(
      o.bert_config_file, o.vocab_file, do_lower_case=o.do_lower_case,
      init_checkpoint=o.init_checkpoint, max_seq_length=o.max_seq_length)


def _pairs(o, name):
  path = os.path.join(o.data_dir, getattr(o, name))
  if not tf.io.gfile.exists(path):
    raise InputError("--%s=%s: file not found" % (name, path))
  return pairs_lib.read_pairs(path)


def _input_fn(arrays, is_training, seed=None):
  def input_fn(params):
    d = tf.data.Dataset.from_tensor_slices(arrays)
    if is_training:
      d = d.repeat().shuffle(buffer_size=1000, seed=seed)
    return d.batch(params["batch_size"], drop_remainder=is_training)
  return input_fn


def _embed(estimator, texts, tokenizer, o):
  feats = pairs_lib.text_features(texts, tokenizer, o.max_seq_length)
  return np.stack([p["embeddings"] for p in
                   estimator.predict(_input_fn(feats, False))])


def _retrieval(estimator, pairs, tokenizer, o, k=10):
  """(anchors' top-k ids and scores, gold ids, corpus) for `pairs`."""
  corpus = list(dict.fromkeys([p.positive for p in pairs] +
                              [p.negative for p in pairs if p.negative]))
  index = {text: i for i, text in enumerate(corpus)}
  gold = np.array([index[p.positive] for p in pairs])
  queries = _embed(estimator, [p.anchor for p in pairs], tokenizer, o)
  scores, ids = search.top_k(queries, _embed(estimator, corpus, tokenizer, o),
                             k)
  return scores, ids, gold


def run(o):
  """Runs training / eval / predict / export as the flags in `o` say."""
  runner.start_strategy(o)
  bert_config, tokenizer = validate(o)
  task = BiEncoderTask(bert_config, o.pooling, o.normalize, o.scale)
  tf.io.gfile.makedirs(o.output_dir)
  refuse_other_model(o.output_dir, task)
  config = runner.run_config_from_flags(
      o, runner.strategy_from_FLAGS(o),
      log_step_count_steps=min(100, o.iterations_per_loop))
  num_train_steps = num_warmup_steps = None
  if o.do_train:
    train_pairs = _pairs(o, "train_file")
    num_train_steps = int(len(train_pairs) / o.train_batch_size *
                          o.num_train_epochs)
    num_warmup_steps = int(num_train_steps * o.warmup_proportion)
    logging.info("***** Running training ***** pairs=%d batch=%d steps=%d",
                 len(train_pairs), o.train_batch_size, num_train_steps)
  estimator = runner.estimator_from_flags(task, config, o, num_train_steps,
                                          num_warmup_steps)
  if o.do_train:
    arrays = pairs_lib.pair_features(train_pairs, tokenizer, o.max_seq_length)
    estimator.train(_input_fn(arrays, True, runner.data_seed(o)),
                    max_steps=num_train_steps)
  if o.do_eval:
    dev_pairs = _pairs(o, "dev_file")
    arrays = pairs_lib.pair_features(dev_pairs, tokenizer, o.max_seq_length)
    result = dict(estimator.evaluate(_input_fn(arrays, False)))
    _, ids, gold = _retrieval(estimator, dev_pairs, tokenizer, o)
    result.update(search.retrieval_metrics(ids, gold, ks=(1, 10)))
    runner.write_eval_results(os.path.join(o.output_dir, "eval_results.txt"),
                              result)
    print("".join("%s = %s\n" % (k, result[k]) for k in sorted(result)),
          end="")
  if o.do_predict:
    scores, ids, _ = _retrieval(estimator, _pairs(o, "test_file"), tokenizer,
                                o)
    with atomic_open(os.path.join(o.output_dir, "test_results.tsv")) as f:
      for row_ids, row_scores in zip(ids, scores):
        f.write("\t".join("%d:%r" % (i, float(s))
                          for i, s in zip(row_ids, row_scores)) + "\n")
  if o.export_dir:
    from bert_tf2.common import saved_model  # pylint: disable=g-import-not-at-top
    from bert_tf2.embedding import export  # pylint: disable=g-import-not-at-top
    checkpoint = estimator.latest_checkpoint() or o.init_checkpoint
    if not checkpoint:
      raise InputError("--export_dir: nothing to export (no --do_train, no "
                       "checkpoint in --output_dir, no --init_checkpoint)")
    encoder = saved_model.restore_model(task, checkpoint)
    encoder.max_seq_length = o.max_seq_length
    export.export_encoder(encoder, o.vocab_file, o.export_dir,
                          do_lower_case=o.do_lower_case, what="--export_dir")
    print("SavedModel written to %s" % o.export_dir)
