# coding=utf-8
"""People's Daily -> NER files (peoples_daily): tags, the fixed split, the
train-only pretraining text and vocabulary, on a small made-up corpus."""

import pytest

from bert_tf2.common import InputError
from bert_research.demos import peoples_daily
from bert_tf2.ner import reader


def test_split_tags_and_train_only_files(tmp_path):
  lines = ["第%d/m  句/q  江/nr  泽民/nr  在/p  北京/ns  。/w" % i
           for i in range(9)]
  lines.append("新华社/nt  记者/n  ＡＢ/nx  。/w")   # index 9: test
  lines.append("")                                    # a document break
  lines.append("王/nr  在/p  上海/ns")                 # index 10: train
  corpus = tmp_path / "199801.txt"
  corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
  out = tmp_path / "pd"
  sizes = peoples_daily.prepare(str(out), str(corpus))
  assert (sizes["train"], sizes["dev"], sizes["test"]) == (9, 1, 1)

  test = reader.read_conll(str(out / "test.txt"))
  assert [(s.tokens, s.tags) for s in test] == [(
      list("新华社记者ＡＢ。"),
      ["B-ORG", "I-ORG", "I-ORG", "O", "O", "O", "O", "O"])]
  dev = reader.read_conll(str(out / "dev.txt"))
  assert dev[0].tokens[:1] == ["第"] and "8" in dev[0].tokens
  assert dev[0].tags[3:] == ["B-PER", "I-PER", "I-PER", "O", "B-LOC",
                             "I-LOC", "O"]

  chars = (out / "pretrain_chars.txt").read_text(encoding="utf-8")
  words = (out / "pretrain_words.txt").read_text(encoding="utf-8")
  assert "新华社" not in chars and "第8" not in chars     # test, dev
  assert chars.split("\n\n")[1] == "王在上海\n"            # document break
  assert words.splitlines()[0] == "第0 句 江 泽民 在 北京 。"
  vocab = (out / "vocab.txt").read_text(encoding="utf-8").split()
  assert vocab[:5] == peoples_daily.SPECIAL
  assert "上" in vocab and "新" not in vocab


def test_malformed_item_names_file_and_line(tmp_path):
  corpus = tmp_path / "199801.txt"
  corpus.write_text("江/nr  泽民/nr\n北京\n", encoding="utf-8")
  with pytest.raises(InputError, match=r"199801.txt:2: '北京' is not word/POS"):
    peoples_daily.prepare(str(tmp_path / "pd"), str(corpus))
