"""`decode`: the token and the position recovered from word + position +
segment sums.
"""

import numpy as np

from bert_research.analysis.questions import common



def decode_sums(word, position, segment, tokens, positions, segments):
  """Recovers (token, position, segment) from word + position + segment.

  Two nearest-neighbour steps: the token nearest to the sum minus the mean
  position and segment rows, then the (position, segment) pair nearest to
  the sum minus that token's row.

  Args:
    word: float [V, H]; position: float [P, H]; segment: float [T, H].
    tokens, positions, segments: int [N] each, the true ids.

  Returns:
    (token accuracy, position accuracy, segment accuracy, all three), floats.

  >>> rows = np.eye(16)
  >>> w, p, s = rows[:10], rows[10:14], rows[14:]
  >>> decode_sums(w, p, s, np.arange(10), np.arange(10) % 4, np.arange(10) % 2)
  (1.0, 1.0, 1.0, 1.0)
  """
  word, position, segment = (np.asarray(a, np.float64)
                             for a in (word, position, segment))
  sums = word[tokens] + position[positions] + segment[segments]
  base = sums - position.mean(0) - segment.mean(0)
  t_hat = np.argmin(_sq_dist(base, word), axis=1)
  rest = sums - word[t_hat]
  pairs = (position[:, None, :] + segment[None, :, :]).reshape(-1,
                                                               word.shape[1])
  best = np.argmin(_sq_dist(rest, pairs), axis=1)
  p_hat, s_hat = best // segment.shape[0], best % segment.shape[0]
  ok_t, ok_p, ok_s = t_hat == tokens, p_hat == positions, s_hat == segments
  return (float(ok_t.mean()), float(ok_p.mean()), float(ok_s.mean()),
          float((ok_t & ok_p & ok_s).mean()))


def _sq_dist(a, b):
  """Squared distances [N, M] between rows of a [N, H] and b [M, H]."""
  return (np.sum(a * a, 1)[:, None] - 2 * a @ b.T + np.sum(b * b, 1)[None])


def run_decode(args):
  from bert_research.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  read = lambda n: checkpoint_io.read_variable(args.init_checkpoint, n)
  word, position, segment = (read(common.WORD), read(common.POSITION),
                             read(common.SEGMENT))
  position = position[:args.max_positions or None]
  rng = np.random.RandomState(args.seed)
  n = args.samples
  tokens = rng.randint(0, word.shape[0], n)
  positions = rng.randint(0, position.shape[0], n)
  segments = rng.randint(0, segment.shape[0], n)
  acc = decode_sums(word, position, segment, tokens, positions, segments)
  print("%d random (token, position, segment) triples of %d x %d x %d"
        % (n, word.shape[0], position.shape[0], segment.shape[0]))
  print("| recovered | token | position | segment | all three |")
  print("|---|---|---|---|---|")
  print("| accuracy | %.3f | %.3f | %.3f | %.3f |" % acc)
