"""`masking`: the masking rate. Tiny BERTs pretrained by masked LM on a
synthetic language whose topic only bigrams reveal, a topic probe on
their frozen vectors, per rate and seed.
"""

import numpy as np

from bert_research.analysis.questions import common
from tokenization.errors import InputError


def topic_sequences(shifts, count, seq_length, vocab_size, stay, rng):
  """Sequences of a synthetic language whose topic only bigrams reveal.

  Tokens are 1..vocab_size-1. A sequence of topic t starts anywhere; each
  next token is the previous one plus shifts[t] (mod, within 1..V-1) with
  probability `stay`, else uniform. Every topic has the uniform unigram
  distribution, so a bag of tokens says nothing of the topic: a model must
  relate neighbours.

  Args:
    shifts: list of int, one per topic; count, seq_length, vocab_size: int;
    stay: float in [0, 1]; rng: numpy RandomState.

  Returns:
    (ids int32 [count, seq_length], topic int [count]).

  >>> ids, topic = topic_sequences([1], 1, 4, 5, 1.0, np.random.RandomState(0))
  >>> bool(np.all((np.diff(ids[0]) % 4) == 1)), topic.tolist()
  (True, [0])
  """
  n = vocab_size - 1
  topic = rng.randint(len(shifts), size=count)
  ids = np.zeros((count, seq_length), np.int64)
  ids[:, 0] = rng.randint(n, size=count)
  step = np.asarray(shifts)[topic]
  for i in range(1, seq_length):
    keep = rng.rand(count) < stay
    ids[:, i] = np.where(keep, (ids[:, i - 1] + step) % n,
                         rng.randint(n, size=count))
  return (ids + 1).astype(np.int32), topic


def predictions_per_sequence(rate, seq_length):
  """round(rate x seq_length), at least 1: the masked positions a sequence.

  >>> [predictions_per_sequence(r, 32) for r in (0.1, 0.15, 0.25, 0.4)]
  [3, 5, 8, 13]
  """
  return max(1, int(round(rate * seq_length)))


def mask_tokens(ids, rate, mask_id, vocab_size, rng):
  """BERT's masking at `rate`: round(rate x length) positions (at least 1)
  per sequence are predicted; of those 80% become mask_id, 10% a random
  token, 10% stay.

  Args:
    ids: int [B, S] (tokens 1..vocab_size-1); rate: float in (0, 1];
    mask_id: int; rng: numpy RandomState.

  Returns:
    (inputs int32 [B, S], weights float32 [B, S]: 1 at predicted positions).

  >>> x, w = mask_tokens(np.ones([2, 10], np.int32), 0.4, 9, 5,
  ...                    np.random.RandomState(0))
  >>> w.sum(axis=1).tolist()
  [4.0, 4.0]
  """
  b, s = ids.shape
  m = predictions_per_sequence(rate, s)
  chosen = np.argsort(rng.rand(b, s), axis=1)[:, :m]
  weights = np.zeros((b, s), np.float32)
  np.put_along_axis(weights, chosen, 1.0, axis=1)
  draw = rng.rand(b, s)
  inputs = np.array(ids, np.int32)
  inputs[(weights > 0) & (draw < 0.8)] = mask_id
  swap = (weights > 0) & (draw >= 0.8) & (draw < 0.9)
  inputs[swap] = rng.randint(1, vocab_size, size=int(swap.sum()))
  return inputs, weights


MASKING_SHIFTS = (1, 2, 3, 5)


def masking_probe(net, data, train_share=0.5):
  """Topic accuracy of a logistic regression on mean-pooled last-layer
  vectors (frozen), trained on the first half of `data`, scored on the rest.

  Args:
    net: toy_training.ToyNet; data: (ids [N, S], topic [N]).

  Returns:
    float.
  """
  ids, topic = data
  x = net.sequence_output(ids, np.ones_like(ids)).mean(axis=1)
  cut = int(len(topic) * train_share)
  guess = common.probe_predictions(x[:cut], topic[:cut], x[cut:])
  return float(np.mean(guess == topic[cut:]))


def masking_run(rate, seed, args):
  """Pretrains one tiny BERT by masked LM at `rate` and probes it.

  The seed fixes the initial weights and the sequences (the same for every
  rate); only the masking draws depend on the rate.

  Returns:
    (probe accuracy before training, after training).
  """
  from bert_research.analysis import toy_training  # pylint: disable=g-import-not-at-top
  v = args.vocab_size
  config = toy_training.tiny_config(v + 1, args.hidden_size, args.layers,
                                    args.heads, args.seq_length)
  net = toy_training.ToyNet(config, 1, seed, args.learning_rate)
  make = lambda count, rng: topic_sequences(
      MASKING_SHIFTS, count, args.seq_length, v, args.stay, rng)
  probe_data = make(args.probe_examples, np.random.RandomState([seed, 0, 1]))
  before = masking_probe(net, probe_data)
  mask_rng = np.random.RandomState([seed, int(round(rate * 1000))])
  for step in range(1, args.steps + 1):
    ids, _ = make(args.batch, np.random.RandomState([seed, step, 0]))
    inputs, weights = mask_tokens(ids, rate, v, v, mask_rng)
    net.train_step({"input_ids": inputs, "input_mask": np.ones_like(ids),
                    "targets": ids[None], "weights": weights[None]})
  return before, masking_probe(net, probe_data)


def rates_differ(accuracies):
  """Whether the rates' mean accuracies differ beyond the seed noise.

  Args:
    accuracies: float [R, N]: N seeds per rate (N >= 2).

  Returns:
    (largest gap between two rates' means, the 95% half-width of a
    difference of two means, 1.96 x sqrt(2 / N) x the pooled seed sd):
    the gap exceeds the noise when it is the larger.

  >>> gap, noise = rates_differ([[0.5, 0.7], [0.9, 0.9]])
  >>> round(gap, 2), round(noise, 3)
  (0.3, 0.196)
  """
  a = np.asarray(accuracies, np.float64)
  means = a.mean(axis=1)
  sd = np.sqrt(np.mean(a.var(axis=1, ddof=1)))
  return (float(means.max() - means.min()),
          float(1.96 * np.sqrt(2.0 / a.shape[1]) * sd))


def run_masking(args):
  for flag, value, least in (("steps", args.steps, 0), ("seeds", args.seeds, 1),
                             ("batch", args.batch, 1),
                             ("seq_length", args.seq_length, 4),
                             ("vocab_size", args.vocab_size, 8),
                             ("probe_examples", args.probe_examples, 8)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  if not 0.0 <= args.stay <= 1.0:
    raise InputError("--stay=%g: must be in [0, 1]" % args.stay)
  if not args.rates or not all(0.0 < r <= 1.0 for r in args.rates):
    raise InputError("--rates=%s: each must be in (0, 1]"
                     % ",".join("%g" % r for r in args.rates))
  acc = [[masking_run(rate, seed, args) for seed in range(args.seeds)]
         for rate in args.rates]
  print("synthetic language: %d topics told apart only by bigrams (next "
        "token = previous + shift with probability %.2f), %d tokens, "
        "sequences of %d; tiny BERT (%d layers, hidden %d), %d masked-LM "
        "steps of %d sequences, %d seeds; topic probe (chance %.2f) on "
        "mean-pooled frozen vectors, %d sequences (half to train)"
        % (len(MASKING_SHIFTS), args.stay, args.vocab_size - 1,
           args.seq_length, args.layers, args.hidden_size, args.steps,
           args.batch, args.seeds, 1.0 / len(MASKING_SHIFTS),
           args.probe_examples))
  print(masking_table(args.rates, acc, args.seq_length))


def masking_table(rates, acc, seq_length):
  """The printed table and the noise tests, as text.

  Args:
    rates: R floats; acc: R lists of (untrained, pretrained) accuracies,
      one per seed; seq_length: int.

  Returns:
    str: the Markdown table (a row per rate: predictions per sequence,
    untrained accuracy, pretrained per seed, mean, sd), then one line per
    test of `rates_differ` (every rate; every rate but the lowest, when
    there are 3 or more), with 2 seeds or more.
  """
  lines = ["| masking rate | predictions per sequence | probe accuracy, "
           "untrained | pretrained, per seed | mean | sd |",
           "|---|---|---|---|---|---|"]
  for rate, runs in zip(rates, acc):
    after = [a for _, a in runs]
    lines.append("| %g%% | %d | %.3f | %s | %.3f | %.3f |" % (
        100 * rate, predictions_per_sequence(rate, seq_length),
        np.mean([b for b, _ in runs]), " ".join("%.3f" % a for a in after),
        np.mean(after), np.std(after, ddof=1) if len(after) > 1 else 0.0))
  if len(acc[0]) > 1 and len(rates) > 1:
    order = np.argsort(rates)
    groups = [("every rate", order)]
    if len(rates) > 2:
      groups.append(("without the lowest (%s)" % ", ".join(
          "%g%%" % (100 * rates[i]) for i in order[1:]), order[1:]))
    for name, which in groups:
      gap, noise = rates_differ([[a for _, a in acc[i]] for i in which])
      lines.append(
          "%s: largest gap between rates %.3f, noise (95%% of a difference "
          "of two means) %.3f: the rates %s" % (
              name, gap, noise, "differ beyond the noise" if gap > noise
              else "do not differ beyond the noise"))
  return "\n".join(lines)
