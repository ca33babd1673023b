"""SQuAD examples -> fixed-length model inputs with sliding windows.

Each example becomes one `InputFeatures` per window ("doc span") of the
WordPiece-tokenized context:

    [CLS] question tokens [SEP] window of context tokens [SEP] 0 0 ...

Window starts and max-context flags: `tokenization.windows`. In training,
answer positions point into the window, or to [CLS] (position 0) when the
answer is not inside the window or the question is unanswerable.

Example:
  >>> import tokenization  # doctest: +SKIP
  >>> feats = []
  >>> convert_examples_to_features(examples, tokenizer, 384, 128, 64,
  ...                              is_training=False,
  ...                              output_fn=feats.append)  # doctest: +SKIP
"""

from absl import logging

from tokenization import windows

# The original numbers features from this value upwards.
FIRST_UNIQUE_ID = 1000000000


def doc_windows(num_tokens, max_tokens_for_doc, doc_stride):
  """run_squad.py's doc spans: [(start, length)] of the windows over a
  context of `num_tokens` pieces (`tokenization.windows.window_spans`);
  none for an empty context, as the original.

  Raises:
    ValueError: no room for context tokens (max_tokens_for_doc < 1).
  """
  if max_tokens_for_doc < 1:
    raise ValueError("no room for context tokens in the sequence "
                     "(max_tokens_for_doc=%d)" % max_tokens_for_doc)
  if not num_tokens:
    return []
  return windows.window_spans(num_tokens, max_tokens_for_doc, doc_stride)


class InputFeatures(object):
  """One window of one example, ready for the model.

  Attributes:
    unique_id: int, FIRST_UNIQUE_ID + running index over all features.
    example_index: int, index of the example in the list converted.
    doc_span_index: int, index of the window within the example.
    tokens: list of str, the WordPiece tokens (no padding).
    token_to_orig_map: dict {feature position: word index in doc_tokens} for
      the context tokens.
    token_is_max_context: dict {feature position: bool} for the context tokens.
    input_ids, input_mask, segment_ids: lists of max_seq_length ints.
    start_position, end_position: int answer positions (training), else None.
    is_impossible: bool.
  """

  def __init__(self, unique_id, example_index, doc_span_index, tokens,
               token_to_orig_map, token_is_max_context, input_ids, input_mask,
               segment_ids, start_position=None, end_position=None,
               is_impossible=None):
    self.unique_id = unique_id
    self.example_index = example_index
    self.doc_span_index = doc_span_index
    self.tokens = tokens
    self.token_to_orig_map = token_to_orig_map
    self.token_is_max_context = token_is_max_context
    self.input_ids = input_ids
    self.input_mask = input_mask
    self.segment_ids = segment_ids
    self.start_position = start_position
    self.end_position = end_position
    self.is_impossible = is_impossible


def improve_answer_span(doc_tokens, input_start, input_end, tokenizer,
                        orig_answer_text):
  """Narrows a word-level answer span to the sub-tokens of the answer text
  ("(1895-1943)." -> "1895"): the first (leftmost start, then longest)
  sub-span whose tokens equal the tokenized answer, else the input span.
  doc_tokens: all WordPiece tokens of the context; spans are inclusive.
  """
  tok_answer_text = " ".join(tokenizer.tokenize(orig_answer_text))
  for new_start in range(input_start, input_end + 1):
    for new_end in range(input_end, new_start - 1, -1):
      if " ".join(doc_tokens[new_start:(new_end + 1)]) == tok_answer_text:
        return new_start, new_end
  return input_start, input_end


def _tokenize_context(doc_tokens, tokenizer):
  """Returns (all_doc_tokens, tok_to_orig_index, orig_to_tok_index)."""
  tok_to_orig_index = []
  orig_to_tok_index = []
  all_doc_tokens = []
  for i, token in enumerate(doc_tokens):
    orig_to_tok_index.append(len(all_doc_tokens))
    for sub_token in tokenizer.tokenize(token):
      tok_to_orig_index.append(i)
      all_doc_tokens.append(sub_token)
  return all_doc_tokens, tok_to_orig_index, orig_to_tok_index


def _answer_token_span(example, all_doc_tokens, orig_to_tok_index, tokenizer):
  """Inclusive token span of a training answer ((-1, -1) if impossible)."""
  if example.is_impossible:
    return -1, -1
  tok_start = orig_to_tok_index[example.start_position]
  if example.end_position < len(example.doc_tokens) - 1:
    tok_end = orig_to_tok_index[example.end_position + 1] - 1
  else:
    tok_end = len(all_doc_tokens) - 1
  return improve_answer_span(all_doc_tokens, tok_start, tok_end, tokenizer,
                             example.orig_answer_text)


def convert_examples_to_features(examples, tokenizer, max_seq_length,
                                 doc_stride, max_query_length, is_training,
                                 output_fn):
  """Converts SquadExamples to InputFeatures, passing each to `output_fn`
  (the other arguments as run_squad.py's flags; is_training: compute
  start/end positions); returns the number of features produced."""
  unique_id = FIRST_UNIQUE_ID
  context_cache = (None, None)  # Questions on one paragraph share its words.
  for example_index, example in enumerate(examples):
    query_tokens = tokenizer.tokenize(example.question_text)[:max_query_length]

    if context_cache[0] is not example.doc_tokens:
      context_cache = (example.doc_tokens,
                       _tokenize_context(example.doc_tokens, tokenizer))
    all_doc_tokens, tok_to_orig_index, orig_to_tok_index = context_cache[1]

    tok_start_position = tok_end_position = None
    if is_training:
      tok_start_position, tok_end_position = _answer_token_span(
          example, all_doc_tokens, orig_to_tok_index, tokenizer)

    doc_spans = doc_windows(len(all_doc_tokens),
                            max_seq_length - len(query_tokens) - 3,
                            doc_stride)
    max_context_span = windows.max_context_windows(doc_spans,
                                                   len(all_doc_tokens))

    for doc_span_index, (doc_start, doc_length) in enumerate(doc_spans):
      tokens = ["[CLS]"] + query_tokens + ["[SEP]"]
      segment_ids = [0] * len(tokens)
      token_to_orig_map = {}
      token_is_max_context = {}
      for i in range(doc_start, doc_start + doc_length):
        token_to_orig_map[len(tokens)] = tok_to_orig_index[i]
        token_is_max_context[len(tokens)] = (
            max_context_span[i] == doc_span_index)
        tokens.append(all_doc_tokens[i])
      tokens.append("[SEP]")
      segment_ids += [1] * (doc_length + 1)
      input_ids = tokenizer.convert_tokens_to_ids(tokens)
      padding = max_seq_length - len(input_ids)
      input_mask = [1] * len(input_ids) + [0] * padding
      input_ids = list(input_ids) + [0] * padding
      segment_ids += [0] * padding

      start_position = end_position = None
      if is_training:
        doc_end = doc_start + doc_length - 1
        if (example.is_impossible or tok_start_position < doc_start or
            tok_end_position > doc_end):
          start_position = end_position = 0
        else:
          doc_offset = len(query_tokens) + 2  # [CLS] question [SEP]
          start_position = tok_start_position - doc_start + doc_offset
          end_position = tok_end_position - doc_start + doc_offset

      if example_index < 5:
        logging.info("feature %d (example %d, window %d): %s", unique_id,
                     example_index, doc_span_index, " ".join(tokens))
        if is_training:
          logging.info("  answer positions %s..%s", start_position,
                       end_position)

      output_fn(InputFeatures(
          unique_id=unique_id, example_index=example_index,
          doc_span_index=doc_span_index, tokens=tokens,
          token_to_orig_map=token_to_orig_map,
          token_is_max_context=token_is_max_context, input_ids=input_ids,
          input_mask=input_mask, segment_ids=segment_ids,
          start_position=start_position, end_position=end_position,
          is_impossible=example.is_impossible))
      unique_id += 1
  return unique_id - FIRST_UNIQUE_ID
