"""answer_spans: the original's answer -> word -> word-piece span rules."""

import tensorflow as tf

import tokenization
from bert_tf2.squad import answer_spans
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from tests.squad import fixture_data
from tokenization import tf_text

# (context, answer_start, answer text): a word inside punctuation, an answer
# starting on a space, one across U+202F, one whose text has a no-break
# space (Python's split, not the reader's), one not in its words, accents.
CASES = [
    ("John Smith (1895-1943), a carpenter", 12, "1895"),
    ("the  red fox", 4, " red"),
    ("at 7:30\u202fa.m. daily", 3, "7:30\u202fa.m."),
    ("Dr.\u00a0Smith spoke", 0, "Dr.\u00a0Smith"),
    ("Photosynthesis is green", 5, "synthesis XX"),
    ("Crème brûlée au café", 6, "brûlée"),
    ("one", 0, "one"),
]


def _original(context, start, text, tokenizer):
  """(found, piece start, piece end) by the original's Python steps."""
  words, char_to_word = examples_lib.split_context(context)
  first, last = char_to_word[start], char_to_word[start + len(text) - 1]
  found = " ".join(words[first:last + 1]).find(" ".join(text.split())) >= 0
  pieces, _, orig_to_tok = features_lib._tokenize_context(words, tokenizer)  # pylint: disable=protected-access
  tok_start = orig_to_tok[first]
  tok_end = (orig_to_tok[last + 1] - 1 if last < len(words) - 1
             else len(pieces) - 1)
  span = features_lib.improve_answer_span(pieces, tok_start, tok_end,
                                          tokenizer, text)
  return found, span


def test_spans_equal_the_originals():
  vocab = fixture_data.real_vocab_file()
  tokenizer = tokenization.FullTokenizer(vocab, do_lower_case=True)
  tok = tf_text.InGraphTokenizer(vocab, do_lower_case=True)
  contexts = tf.constant([c for c, _, _ in CASES])
  texts = tf.constant([t for _, _, t in CASES])
  words, begins = answer_spans.context_words(contexts)
  start_word, end_word, found = answer_spans.answer_words(
      contexts, words, begins, tf.constant([s for _, s, _ in CASES]), texts)
  doc, piece_word = answer_spans.context_pieces(words, tok)
  first, last = answer_spans.answer_pieces(piece_word, doc,
                                           tok.tokenize(texts), start_word,
                                           end_word)
  for i, (context, start, text) in enumerate(CASES):
    want_found, want_span = _original(context, start, text, tokenizer)
    assert bool(found[i]) == want_found, context
    assert (int(first[i]), int(last[i])) == want_span, context
  # Not found again: "synthesis XX", and "Dr.<U+00A0>Smith" (its cleaned
  # text has a space where the word has U+00A0).
  assert [i for i in range(len(CASES)) if not found[i]] == [3, 4]
  # "1895" is narrowed to its piece inside "(1895-1943),".
  assert (int(first[0]), int(last[0])) == (3, 3)   # john smith ( 1895
