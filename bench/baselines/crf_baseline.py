# coding=utf-8
"""A CRF baseline for character-level NER (sklearn-crfsuite, optional).

Features of character i: the character itself, its neighbours at offsets
-2..+2, the bigrams (i-1, i) and (i, i+1), and whether it is a digit, a
Latin letter or punctuation; BOS/EOS marks at the ends. Trained with
L-BFGS and L1 + L2 regularisation (c1, c2), as sklearn-crfsuite's
tutorial. Evaluated with metrics.evaluate (conlleval semantics), so its F1
is comparable with run_ner.py's.

  pip install sklearn-crfsuite
  python -m bench.baselines.crf_baseline --data_dir=/tmp/pd --output_dir=/tmp/crf

Example:
  >>> char_features(["北", "京"], 0)["c[0]"], char_features(["北", "京"], 1)["c[0]c[-1]"]
  ('北', '京北')
"""

import json
import os
import time
import unicodedata

from bert_tf2.common import InputError
from bert_tf2.common import atomic_write_text
from bert_tf2.ner import metrics as metrics_lib
from bert_tf2.ner import reader


def _char(chars, i):
  if i < 0:
    return "<BOS>"
  if i >= len(chars):
    return "<EOS>"
  return chars[i]


def char_features(chars, i):
  """dict of string features of position i of a list of characters."""
  c = chars[i]
  features = {"bias": 1.0}
  for k in (-2, -1, 0, 1, 2):
    features["c[%d]" % k] = _char(chars, i + k)
  features["c[0]c[-1]"] = c + _char(chars, i - 1)
  features["c[0]c[1]"] = c + _char(chars, i + 1)
  features["digit"] = c.isdigit()
  features["latin"] = c.isascii() and c.isalpha()
  features["punct"] = unicodedata.category(c).startswith("P")
  return features


def sentence_features(tokens):
  return [char_features(tokens, i) for i in range(len(tokens))]


def run(data_dir, output_dir, c1=0.1, c2=0.1, max_iterations=100):
  """Trains on train.txt, reports entity F1 on dev.txt and test.txt."""
  try:
    import sklearn_crfsuite  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise InputError("the CRF baseline needs sklearn-crfsuite "
                     "(pip install sklearn-crfsuite)") from None
  start = time.time()
  train = reader.read_conll(os.path.join(data_dir, "train.txt"))
  crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=c1, c2=c2,
                             max_iterations=max_iterations,
                             all_possible_transitions=True)
  crf.fit([sentence_features(s.tokens) for s in train],
          [s.tags for s in train])
  train_seconds = time.time() - start
  results = {"train_seconds": train_seconds}
  for split in ("dev", "test"):
    sentences = reader.read_conll(os.path.join(data_dir, split + ".txt"))
    predicted = crf.predict([sentence_features(s.tokens) for s in sentences])
    results[split] = metrics_lib.evaluate([s.tags for s in sentences],
                                          [list(p) for p in predicted])
  results["total_seconds"] = time.time() - start
  os.makedirs(output_dir, exist_ok=True)
  atomic_write_text(os.path.join(output_dir, "crf_results.json"),
                    json.dumps(results, indent=1, sort_keys=True))
  return results


def main(argv=None):
  import argparse  # pylint: disable=g-import-not-at-top
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--data_dir", required=True)
  parser.add_argument("--output_dir", required=True)
  parser.add_argument("--c1", type=float, default=0.1)
  parser.add_argument("--c2", type=float, default=0.1)
  parser.add_argument("--max_iterations", type=int, default=100)
  args = parser.parse_args(argv)
  r = run(args.data_dir, args.output_dir, args.c1, args.c2,
          args.max_iterations)
  for split in ("dev", "test"):
    print("%s entity F1 = %.4f (P %.4f, R %.4f)" % (
        split, r[split]["overall"]["f1"], r[split]["overall"]["precision"],
        r[split]["overall"]["recall"]))
  print("seconds: train %.0f, total %.0f" % (r["train_seconds"],
                                             r["total_seconds"]))


if __name__ == "__main__":
  main()
