"""final_text_in_graph (the serving graph's answer text) equals
run_squad.py's `get_final_text` on every short span of contexts where the
cut is hard: stripped or decomposed accents, Hangul (NFD lengthens it),
case changes, a repeated word (the first match wins), [UNK] and over-long
words, control characters, a no-break space inside a word, ligatures,
punctuation and CJK; lower-cased and cased."""

import pytest
import tensorflow as tf

import tokenization
from bert_tf2.squad import answer_spans
from bert_tf2.squad import examples as examples_lib
from bert_tf2.squad import features as features_lib
from bert_tf2.squad.serving import final_text_in_graph
from bert_tf2.squad.final_text import get_final_text
from tests.squad import fixture_data
from tokenization import tf_text

CONTEXTS = [
    "Café owners in Zürich serve naïve customers crème brûlée.",
    "Cafe\u0301 Ångström and the A\u030angstrom sign \u212b here",
    "서울은 한국의 수도이다 Seoul",
    "İstanbul and ISTANBUL, banana BANANA bAnAnA-banana BonBON.",
    "ab\x07cd Dr.\u00a0Smith \ufb01ne 😀 smile U.S.A. (1887-1889)",
    "long " + "x" * 230 + " word and 北京是中国的首都，人口约2100万。",
    "The Eiffel Tower\twas built by Gustave Eiffel's company\u202fin 1889.",
]
MAX_SPAN = 6


def _python_texts(context, tokenizer, do_lower_case):
  """{(start, end): get_final_text} over the context's piece spans, as
  run_squad.py cuts them (`postprocess._span_text`)."""
  words = examples_lib.split_context(context)[0]
  pieces, piece_word, _ = features_lib._tokenize_context(words, tokenizer)  # pylint: disable=protected-access
  texts = {}
  for start in range(len(pieces)):
    for end in range(start, min(start + MAX_SPAN, len(pieces))):
      tok_text = " ".join(pieces[start:end + 1]).replace(" ##", "")
      tok_text = " ".join(tok_text.replace("##", "").strip().split())
      orig_text = " ".join(words[piece_word[start]:piece_word[end] + 1])
      texts[start, end] = get_final_text(tok_text, orig_text, do_lower_case)
  return pieces, texts


@pytest.mark.parametrize("do_lower_case", [True, False])
def test_in_graph_text_is_get_final_text(do_lower_case):
  vocab = fixture_data.real_vocab_file()
  tokenizer = tokenization.FullTokenizer(vocab, do_lower_case=do_lower_case)
  tok = tf_text.InGraphTokenizer(vocab, do_lower_case=do_lower_case)
  words, _ = answer_spans.context_words(tf.constant(CONTEXTS))
  doc, piece_word = answer_spans.context_pieces(words, tok)
  rows, starts, ends, want = [], [], [], []
  for row, context in enumerate(CONTEXTS):
    pieces, texts = _python_texts(context, tokenizer, do_lower_case)
    assert tokenizer.convert_tokens_to_ids(pieces) == doc[row].numpy().tolist()
    for (start, end), text in texts.items():
      rows.append(row)
      starts.append(start)
      ends.append(end)
      want.append(text)
  pick = lambda r: tf.gather(r, rows)
  got = final_text_in_graph(tok, pick(words), pick(doc), pick(piece_word),
                            tf.constant(starts, tf.int64),
                            tf.constant(ends, tf.int64))
  got = [t.decode("utf-8") for t in got.numpy()]
  assert got == want
  # The cases the rule is about, each met: a cut inside a word; the first
  # match, not the span's own place ("##bon" of "BonBON" is "Bon"); whole
  # words (lengths differ or the text is not found).
  assert any(w not in c.split() and " " not in w
             for w, c in zip(want, (CONTEXTS[r] for r in rows)))
  if do_lower_case:   # (The vocabulary is uncased.)
    bon = tokenizer.convert_tokens_to_ids(["##bon"])[0]
    assert {w for w, r, s, e in zip(want, rows, starts, ends)
            if s == e and doc[r][s] == bon} == {"Bon"}
  whole = [w for w, r, s, e in zip(want, rows, starts, ends)
           if w == " ".join(examples_lib.split_context(CONTEXTS[r])[0][
               piece_word[r][s]:piece_word[r][e] + 1])]
  assert len(whole) > len(want) // 4


def test_rows_without_a_span_give_their_words():
  """An empty context (no words, no pieces) and a span past the end do not
  fail the graph."""
  vocab = fixture_data.real_vocab_file()
  tok = tf_text.InGraphTokenizer(vocab, do_lower_case=True)
  words, _ = answer_spans.context_words(tf.constant(["", "a b", ""]))
  doc, piece_word = answer_spans.context_pieces(words, tok)
  got = final_text_in_graph(tok, words, doc, piece_word,
                            tf.constant([0, 1, 5], tf.int64),
                            tf.constant([0, 1, 9], tf.int64))
  assert got.numpy().tolist() == [b"", b"b", b""]
