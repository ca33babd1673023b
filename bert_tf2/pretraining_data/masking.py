"""Masked-LM predictions, drawing random numbers exactly as the original.

Everything works on token ids. The candidates (all positions but [CLS] and
the two [SEP]) are shuffled with `rng.shuffle` and taken until
`num_to_predict` are masked; each draws `rng.random() < 0.8` -> [MASK], else
`rng.random() < 0.5` -> kept, else `vocab_ids[rng.randint(0, len - 1)]`.
Whole-word masking (master's `--do_whole_word_mask`) shuffles groups of a
token and its "##" pieces instead, skipping a group that would not fit;
word-level masking (`--word_boundaries`) also joins tokens marked
word_boundaries.CONTINUATION and draws 80/10/10 once per word. See
docs/pretraining_data.md.

Example:
  >>> import random
  >>> ids = [101, 7, 8, 102, 9, 102]
  >>> out, pos, labels = create_masked_lm_predictions(
  ...     ids, 4, 0.5, 2, MaskingVocab(list(range(50)), 103, set()),
  ...     random.Random(1))
  >>> len(pos), [ids[p] for p in pos] == labels, pos == sorted(pos)
  (2, True, True)
"""

from bert_tf2.pretraining_data import word_boundaries


class MaskingVocab(object):
  """What masking needs from the vocabulary, as ids.

  Attributes:
    vocab_ids: list of int, the id of every key of `tokenizer.vocab` in its
      order (the original draws random replacements from this list).
    mask_id: int, id of "[MASK]".
    subword_ids: set of int, ids of tokens starting with "##" (whole-word
      masking only).
  """

  def __init__(self, vocab_ids, mask_id, subword_ids):
    self.vocab_ids = vocab_ids
    self.mask_id = mask_id
    self.subword_ids = subword_ids

  @classmethod
  def from_vocab(cls, vocab):
    """Builds it from an ordered token -> id mapping (tokenizer.vocab)."""
    vocab_ids = list(vocab.values())
    subword_ids = {i for token, i in vocab.items() if token.startswith("##")}
    return cls(vocab_ids, vocab["[MASK]"], subword_ids)


def num_predictions(num_tokens, masked_lm_prob, max_predictions_per_seq):
  """The original's count: min(max, max(1, round(len * prob)))."""
  return min(max_predictions_per_seq,
             max(1, int(round(num_tokens * masked_lm_prob))))


def _candidate_positions(len_a, num_tokens):
  # All positions but [CLS] (0), the middle [SEP] (len_a + 1) and the final
  # [SEP]. Text never tokenizes to "[CLS]"/"[SEP]" ("[" is punctuation).
  cands = list(range(1, len_a + 1))
  cands.extend(range(len_a + 2, num_tokens - 1))
  return cands


def create_masked_lm_predictions(ids, len_a, masked_lm_prob,
                                 max_predictions_per_seq, vocab, rng,
                                 do_whole_word_mask=False, word_level=False):
  """Chooses and applies the masked-LM predictions for one instance.

  Args:
    ids: list of int, `[CLS] A [SEP] B [SEP]` token ids (not modified).
    len_a: int, number of tokens of segment A.
    masked_lm_prob: float.
    max_predictions_per_seq: int.
    vocab: MaskingVocab.
    rng: random.Random, advanced exactly as the original advances it.
    do_whole_word_mask: bool.
    word_level: bool, word groups from continuation marks, one 80/10/10
      draw per word; implies whole words.

  Returns:
    (output_ids, masked_lm_positions, masked_lm_label_ids): the masked copy
    of `ids`, the sorted masked positions and the original ids there.
  """
  num_to_predict = num_predictions(len(ids), masked_lm_prob,
                                   max_predictions_per_seq)
  if word_level:
    return _mask_words(ids, len_a, num_to_predict, vocab, rng)
  output = list(ids)
  random = rng.random
  randint = rng.randint
  vocab_ids = vocab.vocab_ids
  num_vocab = len(vocab_ids)
  mask_id = vocab.mask_id
  positions = []
  # Without whole words every group is one token: the same draws.
  groups = _word_groups(ids, len_a,
                        vocab.subword_ids if do_whole_word_mask else ())
  rng.shuffle(groups)
  for group in groups:
    if len(positions) >= num_to_predict:
      break
    if len(positions) + len(group) > num_to_predict:
      continue
    # Groups are disjoint, so none is ever partly covered already.
    for index in group:
      if random() < 0.8:
        output[index] = mask_id
      elif random() >= 0.5:
        output[index] = vocab_ids[randint(0, num_vocab - 1)]
      positions.append(index)
  positions.sort()
  labels = [ids[p] for p in positions]
  return output, positions, labels


def _word_groups(ids, len_a, subword_ids):
  """Candidate groups for whole-word masking, in position order."""
  groups = []
  for index in _candidate_positions(len_a, len(ids)):
    if groups and ids[index] in subword_ids:
      groups[-1].append(index)
    else:
      groups.append([index])
  return groups


def _mask_words(ids, len_a, num_to_predict, vocab, rng):
  """Word-level masking: one 80/10/10 draw per word group."""
  continuation = word_boundaries.CONTINUATION
  clean = [i & (continuation - 1) for i in ids]
  groups = []
  for index in _candidate_positions(len_a, len(ids)):
    joins = ids[index] >= continuation or clean[index] in vocab.subword_ids
    if joins and groups and groups[-1][-1] == index - 1:
      groups[-1].append(index)
    else:
      groups.append([index])
  rng.shuffle(groups)
  output = list(clean)
  positions = []
  vocab_ids = vocab.vocab_ids
  for group in groups:
    if len(positions) >= num_to_predict:
      break
    if len(positions) + len(group) > num_to_predict:
      continue
    if rng.random() < 0.8:
      for index in group:
        output[index] = vocab.mask_id
    elif rng.random() >= 0.5:
      for index in group:
        output[index] = vocab_ids[rng.randint(0, len(vocab_ids) - 1)]
    positions.extend(group)
  positions.sort()
  return output, positions, [clean[p] for p in positions]
