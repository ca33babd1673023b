"""`layers`: position through the layers on BBC sentences: linear probes
of each token's index and of the order of two tokens (held-out
sentences), and how much each layer's output changes when the words are
shuffled.
"""

import os

import numpy as np

from bert_research.analysis.questions import common
from tokenization.errors import InputError


def pack_words(pieces, order, cls_id, sep_id):
  """[CLS] + the words' pieces in `order` + [SEP].

  Args:
    pieces: list over W words of lists of int piece ids.
    order: int [W], the words' order (a permutation of 0..W-1).
    cls_id, sep_id: ints.

  Returns:
    (ids, word): int numpy [n] each: the input ids, and for each token the
    index of its word in `pieces` (-1 for [CLS] and [SEP]).

  >>> ids, word = pack_words([[7], [8, 9]], [1, 0], 1, 2)
  >>> ids.tolist(), word.tolist()
  ([1, 8, 9, 7, 2], [-1, 1, 1, 0, -1])
  """
  ids, word = [cls_id], [-1]
  for w in order:
    ids += list(pieces[w])
    word += [w] * len(pieces[w])
  return np.array(ids + [sep_id]), np.array(word + [-1])


def shuffled_token_index(word, shuffled_word):
  """For each token of the original order, its index in the shuffled one.

  Args:
    word, shuffled_word: int [n] from `pack_words` (the same words in two
      orders).

  Returns:
    int numpy [n] ([CLS] and [SEP] keep their places).

  >>> shuffled_token_index(np.array([-1, 0, 1, 1, -1]),
  ...                      np.array([-1, 1, 1, 0, -1])).tolist()
  [0, 3, 1, 2, 4]
  """
  word, shuffled_word = np.asarray(word), np.asarray(shuffled_word)
  out = np.arange(word.size)
  for w in np.unique(word[word >= 0]):
    out[word == w] = np.nonzero(shuffled_word == w)[0]
  return out


def order_pairs(n, max_pairs, rng):
  """Token pairs (a, b) of one sentence of n tokens, [CLS] / [SEP] left out.

  Args:
    n: int >= 4.
    max_pairs: int, at most this many random pairs.
    rng: numpy RandomState (which pairs, and which way round).

  Returns:
    (pairs, neighbours): int numpy [m, 2] each: random pairs and every
    adjacent pair, each flipped with probability 1/2 (so "b after a" is
    true about half the time).
  """
  a, b = np.triu_indices(n - 2, 1)
  keep = rng.permutation(a.size)[:max_pairs]
  pairs = np.stack([a[keep], b[keep]], axis=1) + 1
  near = np.stack([np.arange(1, n - 2), np.arange(2, n - 1)], axis=1)
  for p in (pairs, near):
    flip = rng.rand(len(p)) < 0.5
    p[flip] = p[flip][:, ::-1]
  return pairs, near


def position_probe(train_x, train_pos, test_x, test_pos):
  """Ridge regression (standardised features, penalty by CV on the train
  set) of a token's index from its vector.

  Returns:
    (R^2, mean absolute error in tokens) on the test tokens.
  """
  from sklearn.linear_model import RidgeCV  # pylint: disable=g-import-not-at-top
  from sklearn.pipeline import make_pipeline  # pylint: disable=g-import-not-at-top
  from sklearn.preprocessing import StandardScaler  # pylint: disable=g-import-not-at-top
  model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-2, 4, 7)))
  guess = model.fit(train_x, train_pos).predict(test_x)
  test_pos = np.asarray(test_pos, np.float64)
  sst = np.sum((test_pos - np.mean(train_pos)) ** 2)
  return (float(1.0 - np.sum((test_pos - guess) ** 2) / sst),
          float(np.mean(np.abs(test_pos - guess))))


def order_probe(train_x, train_y, tests):
  """`common.probe_predictions` of "b comes after a" from v_b - v_a.

  Args:
    train_x: float [m, H] differences; train_y: bool [m].
    tests: list of (x [m_i, H], y [m_i]) test sets.

  Returns:
    list of floats, the accuracy on each test set.
  """
  guess = common.probe_predictions(train_x, train_y,
                            np.concatenate([x for x, _ in tests]))
  ends = np.cumsum([len(y) for _, y in tests])[:-1]
  return [float(np.mean(g == np.asarray(y)))
          for g, (_, y) in zip(np.split(guess, ends), tests)]


def layer_outputs(model, ids):
  """The embedding output and every layer's output for one sequence.

  Args:
    model: a BertModel (or its `common.graph_forward`); ids: int [n].

  Returns:
    float32 numpy [L + 1, n, H] (index 0: the embeddings after LayerNorm).
  """
  out = model({"input_ids": np.asarray(ids, np.int32)[None]})
  return np.stack([np.asarray(out["embedding_output"])[0]] + [
      np.asarray(x)[0] for x in out["encoder_outputs"]])


def sentence_features(model, word_table, pieces, cls_id, sep_id, rng,
                      max_pairs):
  """What the layer probes need from one sentence, original and shuffled.

  Args:
    model: a BertModel (or its `common.graph_forward`).
    word_table: float [V, H], its word embeddings.
    pieces: list over W >= 2 words of lists of piece ids.
    cls_id, sep_id: ints.
    rng: numpy RandomState (the word shuffle and the pairs).
    max_pairs: int, random pairs per sentence.

  Returns:
    dict of numpy arrays, "tokens" meaning tokens 1..n-2 ([CLS] and [SEP]
    left out) and R = L + 2 rows of vectors (the word rows alone, then the
    embedding output and each layer's output): vectors [R, tokens, H],
    position [tokens], pair_diff / near_diff [R, m, H] (v_b - v_a),
    pair_after / near_after bool [m], shuffle_cos [R, tokens] (each token's
    cosine with itself in the sentence with its words shuffled).
  """
  ids, word = pack_words(pieces, np.arange(len(pieces)), cls_id, sep_id)
  perm = rng.permutation(len(pieces))
  while np.all(perm == np.arange(len(pieces))):
    perm = rng.permutation(len(pieces))
  shuffled_ids, shuffled_word = pack_words(pieces, perm, cls_id, sep_id)
  where = shuffled_token_index(word, shuffled_word)
  table = np.asarray(word_table)
  vectors = np.concatenate([table[ids][None], layer_outputs(model, ids)])
  shuffled = np.concatenate([table[shuffled_ids][None],
                             layer_outputs(model, shuffled_ids)])[:, where]
  dot = np.sum(vectors * shuffled, axis=-1)
  cos = dot / (np.linalg.norm(vectors, axis=-1)
               * np.linalg.norm(shuffled, axis=-1))
  pairs, near = order_pairs(len(ids), max_pairs, rng)
  tokens = slice(1, len(ids) - 1)
  return {"vectors": vectors[:, tokens],
          "position": np.arange(len(ids))[tokens],
          "pair_diff": vectors[:, pairs[:, 1]] - vectors[:, pairs[:, 0]],
          "pair_after": pairs[:, 1] > pairs[:, 0],
          "near_diff": vectors[:, near[:, 1]] - vectors[:, near[:, 0]],
          "near_after": near[:, 1] > near[:, 0],
          "shuffle_cos": cos[:, tokens]}


def layer_table(train, test):
  """Per row of vectors: the position and order probes and the shuffle
  similarity, trained on the train sentences and scored on the test ones.

  Args:
    train, test: dicts of `sentence_features` arrays concatenated over the
      sentences (the token and pair axes).

  Returns:
    list over the R rows of (position R^2, position MAE, order accuracy
    on random pairs, order accuracy on neighbours, mean shuffle cosine).
  """
  rows = []
  for r in range(train["vectors"].shape[0]):
    r2, mae = position_probe(train["vectors"][r], train["position"],
                             test["vectors"][r], test["position"])
    pair_acc, near_acc = order_probe(
        train["pair_diff"][r], train["pair_after"],
        [(test["pair_diff"][r], test["pair_after"]),
         (test["near_diff"][r], test["near_after"])])
    rows.append((r2, mae, pair_acc, near_acc,
                 float(np.mean(test["shuffle_cos"][r]))))
  return rows


def plot_layers(names, rows, path):
  """The `layers` table as one figure: position R^2, the two order
  accuracies and the shuffle cosine against the row (word rows, embedding
  output, layer 1..L).

  Args:
    names: list of R row names; rows: list of R `layer_table` tuples.
    path: PNG written atomically.
  """
  from bert_research.analysis import plots  # pylint: disable=g-import-not-at-top
  rows = np.asarray(rows, np.float64)
  fig, ax = plots.new_figure(figsize=(7.5, 4.2))
  x = np.arange(len(names))
  for column, label in ((0, "position R^2 (probe)"),
                        (2, "order accuracy, random pairs"),
                        (3, "order accuracy, neighbours"),
                        (4, "cos(original, words shuffled)")):
    ax.plot(x, rows[:, column], marker="o", label=label)
  ax.axhline(0.5, color="grey", ls=":", lw=1)
  ax.set_xticks(x)
  ax.set_xticklabels(["words" if i == 0 else "emb" if i == 1 else str(i - 1)
                      for i in range(len(names))])
  ax.set_xlabel("vectors (word rows only, embedding output, layer)")
  ax.set_ylim(min(0.0, rows[:, [0, 2, 3, 4]].min()) - 0.02, 1.02)
  ax.set_title("Position through the layers (order chance 0.5)", fontsize=10)
  ax.legend(fontsize=8)
  plots.save_figure(fig, path)


def concat_features(features):
  """`sentence_features` dicts joined along the token / pair axes."""
  axis = {"vectors": 1, "pair_diff": 1, "near_diff": 1, "shuffle_cos": 1}
  return {k: np.concatenate([f[k] for f in features], axis=axis.get(k, 0))
          for k in features[0]}


def layer_sentences(tokenizer, count, max_seq_length, min_words=8):
  """BBC News sentences as lists of word-piece ids per word.

  Args:
    tokenizer: FullTokenizer; count: int, how many sentences at most.
    max_seq_length: int, a sentence's pieces + [CLS] + [SEP] must fit.
    min_words: int, shorter sentences are skipped.

  Returns:
    list of lists (words) of lists (pieces) of int ids, in corpus order.
  """
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
  out = []
  for article in positions_why.bbc_articles(LAYER_ARTICLES):
    for sentence in article:
      words = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(w))
               for w in sentence.split()]
      words = [w for w in words if w]
      if (len(words) >= min_words
          and sum(map(len, words)) <= max_seq_length - 2):
        out.append(words)
      if len(out) == count:
        return out
  return out


LAYER_ARTICLES = 200
TEST_EVERY = 4  # Every 4th sentence is held out.


def run_layers(args):
  for flag, value, least in (("sentences", args.sentences, 2 * TEST_EVERY),
                             ("max_seq_length", args.max_seq_length, 10),
                             ("max_pairs", args.max_pairs, 1)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  if args.output_plot and not os.path.isdir(
      os.path.dirname(os.path.abspath(args.output_plot))):
    raise InputError("--output_plot=%s: its folder does not exist"
                     % args.output_plot)
  model, config = common.load_model(args.bert_config_file, args.init_checkpoint)
  if args.max_seq_length > config.max_position_embeddings:
    raise InputError("--max_seq_length=%d: the model has %d positions"
                     % (args.max_seq_length, config.max_position_embeddings))
  tok = common.full_tokenizer(args.vocab_file)
  cls_id, sep_id = tok.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  sentences = layer_sentences(tok, args.sentences, args.max_seq_length)
  if len(sentences) < 2 * TEST_EVERY:
    raise InputError("--max_seq_length=%d: only %d BBC sentences fit"
                     % (args.max_seq_length, len(sentences)))
  rng = np.random.RandomState(args.seed)
  table = model.embeddings.word_embeddings
  forward = common.graph_forward(model)
  features = [sentence_features(forward, table, s, cls_id, sep_id, rng,
                                args.max_pairs) for s in sentences]
  test = [i % TEST_EVERY == TEST_EVERY - 1 for i in range(len(features))]
  rows = layer_table(
      concat_features([f for f, t in zip(features, test) if not t]),
      concat_features([f for f, t in zip(features, test) if t]))
  lengths = [len(f["position"]) for f in features]
  print("%d BBC sentences (%d held out), %d-%d word pieces (median %d); "
        "probes trained on the others' tokens and pairs"
        % (len(features), sum(test), min(lengths), max(lengths),
           np.median(lengths)))
  print("| vectors | position R^2 | position MAE (tokens) | order accuracy, "
        "random pairs | order accuracy, neighbours | cos(original, words "
        "shuffled) |")
  print("|---|---|---|---|---|---|")
  names = ["word rows only (no position)", "embeddings (layer 0)"] + [
      "layer %d" % (i + 1) for i in range(len(rows) - 2)]
  for name, row in zip(names, rows):
    print("| %s | %.3f | %.2f | %.3f | %.3f | %.3f |" % ((name,) + row))
  if args.output_plot:
    plot_layers(names, rows, args.output_plot)
    print("wrote %s" % args.output_plot)
