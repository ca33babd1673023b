"""Training instances (sentence pairs) with the original's random draws.

`create_instances_from_document` follows the original algorithm step by
step, making the same calls on the same `random.Random` in the same order
(short target length, A/B split, random next with up to 10 document draws,
truncation, masking). An `Instance`'s segment ids are 0 for the first
`len_a + 2` tokens and 1 after.
"""

import collections

from bert_tf2.pretraining_data import masking

Instance = collections.namedtuple(
    "Instance", ["input_ids", "len_a", "masked_lm_positions", "masked_lm_ids",
                 "is_random_next"])


class InstanceOptions(object):
  """The flags that shape instances (validated by pretraining_data.options)."""

  def __init__(self, max_seq_length, short_seq_prob, masked_lm_prob,
               max_predictions_per_seq, cls_id, sep_id, masking_vocab,
               do_whole_word_mask=False, word_level=False):
    self.max_seq_length = max_seq_length
    self.short_seq_prob = short_seq_prob
    self.masked_lm_prob = masked_lm_prob
    self.max_predictions_per_seq = max_predictions_per_seq
    self.cls_id = cls_id
    self.sep_id = sep_id
    self.masking_vocab = masking_vocab
    self.do_whole_word_mask = do_whole_word_mask
    self.word_level = word_level  # --word_boundaries: marks in the ids.


def truncate_seq_pair(tokens_a, tokens_b, max_num_tokens, rng):
  """Trims the longer list (B on ties) one token at a time, front or back."""
  random = rng.random
  len_a = len(tokens_a)
  len_b = len(tokens_b)
  # Track the kept window [start, end) of each list, then slice once.
  start_a, end_a, start_b, end_b = 0, len_a, 0, len_b
  while len_a + len_b > max_num_tokens:
    if len_a > len_b:
      if random() < 0.5:
        start_a += 1
      else:
        end_a -= 1
      len_a -= 1
    else:
      if random() < 0.5:
        start_b += 1
      else:
        end_b -= 1
      len_b -= 1
  if start_a or end_a != len(tokens_a):
    tokens_a[:] = tokens_a[start_a:end_a]
  if start_b or end_b != len(tokens_b):
    tokens_b[:] = tokens_b[start_b:end_b]


def create_instances_from_document(all_documents, document_index, options,
                                   rng):
  """Creates the instances of one document.

  Args:
    all_documents: list of documents (lists of lists of int ids); random next
      segments are drawn from here.
    document_index: int, which document to split into instances.
    options: InstanceOptions.
    rng: random.Random.

  Returns:
    list of Instance.
  """
  document = all_documents[document_index]
  max_num_tokens = options.max_seq_length - 3
  random = rng.random
  randint = rng.randint
  num_docs = len(all_documents)

  target_seq_length = max_num_tokens
  if random() < options.short_seq_prob:
    target_seq_length = randint(2, max_num_tokens)

  instances = []
  chunk = []
  chunk_length = 0
  i = 0
  num_sentences = len(document)
  while i < num_sentences:
    segment = document[i]
    chunk.append(segment)
    chunk_length += len(segment)
    if i == num_sentences - 1 or chunk_length >= target_seq_length:
      a_end = 1
      if len(chunk) >= 2:
        a_end = randint(1, len(chunk) - 1)
      tokens_a = []
      for j in range(a_end):
        tokens_a.extend(chunk[j])

      tokens_b = []
      if len(chunk) == 1 or random() < 0.5:
        is_random_next = True
        target_b_length = target_seq_length - len(tokens_a)
        for _ in range(10):
          random_document_index = randint(0, num_docs - 1)
          if random_document_index != document_index:
            break
        random_document = all_documents[random_document_index]
        random_start = randint(0, len(random_document) - 1)
        for j in range(random_start, len(random_document)):
          tokens_b.extend(random_document[j])
          if len(tokens_b) >= target_b_length:
            break
        i -= len(chunk) - a_end
      else:
        is_random_next = False
        for j in range(a_end, len(chunk)):
          tokens_b.extend(chunk[j])

      truncate_seq_pair(tokens_a, tokens_b, max_num_tokens, rng)
      instances.append(_make_instance(tokens_a, tokens_b, is_random_next,
                                      options, rng))
      chunk = []
      chunk_length = 0
    i += 1
  return instances


def _make_instance(tokens_a, tokens_b, is_random_next, options, rng):
  ids = [options.cls_id]
  ids.extend(tokens_a)
  ids.append(options.sep_id)
  ids.extend(tokens_b)
  ids.append(options.sep_id)
  output, positions, labels = masking.create_masked_lm_predictions(
      ids, len(tokens_a), options.masked_lm_prob,
      options.max_predictions_per_seq, options.masking_vocab, rng,
      options.do_whole_word_mask, word_level=options.word_level)
  return Instance(output, len(tokens_a), positions, labels, is_random_next)

