"""`long_text`: BBC topic by a logistic regression on frozen article
vectors: the first window (truncation) against the mean of sliding
windows.
"""

import numpy as np

from bert_research.analysis.questions import common
from tokenization.errors import InputError


def bbc_labelled(max_articles):
  """[(split, topic, whitespace-normalised article)] of BBC News.

  Args:
    max_articles: int, how many of the 2,225 articles, spread evenly over
      the sorted files (so over the topics); 0 or more than there are
      means all. The split is `positions_why.bbc_split` (about 70/15/15).
  """
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
  files = positions_why.bbc_files()
  n = len(files)
  if 0 < max_articles < n:
    files = [files[i * n // max_articles] for i in range(max_articles)]
  return [(positions_why.bbc_split(path), topic,
           " ".join(positions_why.read_text(path).split()))
          for topic, path in files]


def article_windows(ids, max_seq_length, doc_stride, cls_id, sep_id):
  """Each article's sliding windows, packed as run_classifier.py's
  `--long_text=sliding_window` packs them (`packing.pair_windows` with no
  second text, then `packing.pack_inputs`); the first window of an article
  is its truncation to max_seq_length - 2 word pieces.

  Args:
    ids: list over A articles of lists of int word-piece ids.
    max_seq_length, doc_stride: ints.
    cls_id, sep_id: ints.

  Returns:
    (features, example): dict of int32 numpy [W, max_seq_length]
    ("input_ids", "input_mask", "segment_ids") and int numpy [W], the
    article of each window (articles in order, an article's windows in
    order).
  """
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from tokenization import packing  # pylint: disable=g-import-not-at-top
  lengths = [len(i) for i in ids]
  ids_a = tf.RaggedTensor.from_row_lengths(
      tf.constant([t for i in ids for t in i], tf.int64, [sum(lengths)]),
      tf.constant(lengths, tf.int64, [len(ids)]))
  no_b = tf.RaggedTensor.from_row_lengths(tf.zeros([0], tf.int64),
                                          tf.zeros([len(ids)], tf.int64))
  window_a, _, example = packing.pair_windows(ids_a, no_b, max_seq_length,
                                              doc_stride)
  features = packing.pack_inputs(window_a, None, max_seq_length, cls_id,
                                 sep_id)
  return {k: v.numpy() for k, v in features.items()}, example.numpy()


def window_vectors(model, features, batch_size=64):
  """(mean-pooled, [CLS]) final-layer vectors of each window.

  Args:
    model: a BertModel (or its `common.graph_forward`).
    features: dict of int [W, S] "input_ids", "input_mask", "segment_ids".

  Returns:
    (mean, cls): float32 numpy [W, H] each; mean is over the window's
    real tokens ([CLS] and [SEP] included, as sentence-transformers pools).
  """
  from bert_tf2.embedding import pooling  # pylint: disable=g-import-not-at-top
  mean, cls = [], []
  for i in range(0, len(features["input_ids"]), batch_size):
    batch = {"input_ids": features["input_ids"][i:i + batch_size],
             "input_mask": features["input_mask"][i:i + batch_size],
             "token_type_ids": features["segment_ids"][i:i + batch_size]}
    seq = model(batch)["sequence_output"]
    mean.append(np.asarray(pooling.pool(seq, batch["input_mask"], "mean")))
    cls.append(np.asarray(pooling.pool(seq, batch["input_mask"], "cls")))
  return np.concatenate(mean), np.concatenate(cls)


def article_vectors(vectors, example, num_articles):
  """(first window's vector, mean of the windows' vectors) per article.

  Args:
    vectors: float [W, H], one per window.
    example: int [W], the article of each window, sorted, every article in
      0..num_articles-1 present.

  Returns:
    (first, mean): float [A, H] each.

  >>> first, mean = article_vectors(np.array([[1.], [3.], [5.]]), [0, 0, 1], 2)
  >>> first.tolist(), mean.tolist()
  ([[1.0], [5.0]], [[2.0], [5.0]])
  """
  vectors = np.asarray(vectors, np.float64)
  example = np.asarray(example)
  counts = np.bincount(example, minlength=num_articles)
  if np.any(counts == 0) or np.any(np.diff(example) < 0):
    raise ValueError("every article needs a window, in order")
  sums = np.zeros((num_articles, vectors.shape[1]))
  np.add.at(sums, example, vectors)
  first = vectors[np.searchsorted(example, np.arange(num_articles))]
  return first, sums / counts[:, None]


WINDOW_BUCKETS = ((1, 1), (2, 3), (4, 6), (7, 10**9))


def window_bucket(count):
  """The WINDOW_BUCKETS label of an article with `count` windows.

  >>> [window_bucket(c) for c in (1, 3, 4, 12)]
  ['1', '2-3', '4-6', '7+']
  """
  for low, high in WINDOW_BUCKETS:
    if low <= count <= high:
      return str(low) if low == high else (
          "%d+" % low if high == 10**9 else "%d-%d" % (low, high))
  raise ValueError("count must be >= 1, got %r" % count)


def run_long_text(args):
  for flag, value, least in (("max_articles", args.max_articles, 0),
                             ("max_seq_length", args.max_seq_length, 3),
                             ("doc_stride", args.doc_stride, 1)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  model, _ = common.load_model(args.bert_config_file, args.init_checkpoint)
  tok = common.full_tokenizer(args.vocab_file)
  data = bbc_labelled(args.max_articles)
  if not data:
    raise InputError("--max_articles=%d: no BBC articles" % args.max_articles)
  ids = [tok.convert_tokens_to_ids(tok.tokenize(text)) for _, _, text in data]
  cls_id, sep_id = tok.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  features, example = article_windows(ids, args.max_seq_length,
                                      args.doc_stride, cls_id, sep_id)
  mean, cls = window_vectors(common.graph_forward(model), features)
  counts = np.bincount(example, minlength=len(data))
  pieces = np.array([len(i) for i in ids])
  budget = args.max_seq_length - 2
  print("%d BBC articles (%d windows of %d, stride %d): word pieces median "
        "%d, %d articles longer than %d, %d longer than 510; windows per "
        "article median %d, max %d"
        % (len(data), len(example), args.max_seq_length, args.doc_stride,
           np.median(pieces), np.sum(pieces > budget), budget,
           np.sum(pieces > 510), np.median(counts), counts.max()))
  splits = np.array([s for s, _, _ in data])
  labels = np.array([t for _, t, _ in data])
  train, test = splits == "train", splits == "test"
  if len(set(labels[train])) < 2 or not test.any():
    raise InputError("--max_articles=%d: the train split needs two topics "
                     "and the test split an article" % args.max_articles)
  buckets = np.array([window_bucket(c) for c in counts])
  names = [b for b in ("1", "2-3", "4-6", "7+") if (buckets[test] == b).any()]
  print("logistic regression on the %d train articles' vectors, topic "
        "accuracy on the %d test articles (by windows per article: %s)"
        % (train.sum(), test.sum(), ", ".join(
            "%s: %d" % (b, np.sum(buckets[test] == b)) for b in names)))
  print("| article vector | test accuracy | " + " | ".join(
      "%s window%s" % (b, "" if b == "1" else "s") for b in names) + " |")
  print("|---|---|" + "---|" * len(names))
  for pool_name, vectors in (("mean pooling", mean), ("[CLS]", cls)):
    first, averaged = article_vectors(vectors, example, len(data))
    for how, x in (("first window (truncation)", first),
                   ("mean of all windows", averaged)):
      right = common.probe_predictions(
          x[train], labels[train], x[test]) == labels[test]
      print("| %s, %s | %.3f | " % (how, pool_name, right.mean()) + " | ".join(
          "%.3f" % right[buckets[test] == b].mean() for b in names) + " |")
