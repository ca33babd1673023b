# coding=utf-8
"""Chinese whole-word masking (--word_boundaries): groups, per-word
80/10/10, determinism, the segmented-file check, and untouched defaults."""

import collections
import random
import sys
import types

import pytest
import tensorflow as tf

import tokenization
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import masking
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from bert_tf2.pretraining_data import word_boundaries as wb

# A People's-Daily-like corpus: words separated by spaces, two documents.
SEGMENTED = [
    "中国 人民 银行 今天 宣布 新 的 货币 政策 。",
    "北京 大学 的 学生 在 图书馆 学习 英语 和 数学 。",
    "上海 市 政府 召开 新闻 发布会 ， 介绍 经济 发展 情况 。",
    "",
    "江 泽民 发表 新年 讲话 ， 祝愿 全国 人民 幸福 。",
    "记者 从 国家 统计局 获悉 ， 一九九七年 经济 增长 良好 。",
    "香港 特别 行政区 同胞 和 澳门 同胞 欢度 节日 。",
]


def _raw(lines):
  return ["".join(line.split()) for line in lines]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
  chars = sorted({c for line in SEGMENTED for c in line if not c.isspace()})
  path = tmp_path_factory.mktemp("vocab") / "vocab.txt"
  path.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] +
                            chars) + "\n", encoding="utf-8")
  return tokenization.FullTokenizer(str(path), do_lower_case=True)


def _word_of_position(line):
  """For a segmented line: per character, the index of its word."""
  out = []
  for k, word in enumerate(line.split()):
    out.extend([k] * len(word))
  return out


def test_continuation_marks(tokenizer):
  tokenize = wb.make_tokenize_ids(tokenizer, "spaces")
  ids = tokenize("中国 人民 银行 。")
  assert [wb.strip(i) for i in ids] == tokenizer.convert_tokens_to_ids(
      list("中国人民银行。"))
  assert [wb.is_continuation(i) for i in ids] == [
      False, True, False, True, False, True, False]


def test_words_are_masked_whole_with_one_draw_per_word(tokenizer):
  vocab = masking.MaskingVocab.from_vocab(tokenizer.vocab)
  tokenize = wb.make_tokenize_ids(tokenizer, "spaces")
  a_line, b_line = SEGMENTED[0], SEGMENTED[1]
  a, b = tokenize(a_line), tokenize(b_line)
  cls, sep = tokenizer.vocab["[CLS]"], tokenizer.vocab["[SEP]"]
  ids = [cls] + a + [sep] + b + [sep]
  words = ([None] + _word_of_position(a_line) + [None] +
           [100 + k for k in _word_of_position(b_line)] + [None])
  clean = [wb.strip(i) for i in ids]
  fates = collections.Counter()
  for seed in range(300):
    output, positions, labels = masking.create_masked_lm_predictions(
        ids, len(a), 0.3, 12, vocab, random.Random(seed), word_level=True)
    assert labels == [clean[p] for p in positions]
    assert positions == sorted(set(positions)) and len(positions) <= 12
    assert all(o < wb.CONTINUATION for o in output)
    masked = set(positions)
    for p in range(len(ids)):
      if p not in masked:
        assert output[p] == clean[p]
    by_word = collections.defaultdict(list)
    for p in range(len(ids)):
      if words[p] is not None:
        by_word[words[p]].append(p)
    for group in by_word.values():
      hit = masked & set(group)
      assert not hit or hit == set(group), (group, positions)
      if hit and len(group) > 1:
        is_mask = [output[p] == vocab.mask_id for p in group]
        kept = all(output[p] == clean[p] for p in group)
        fates["mask" if all(is_mask) else "keep" if kept else
              "mixed" if any(is_mask) else "random"] += 1
  total = sum(fates.values())
  # One 80/10/10 draw per word: a word is all [MASK], all kept or all
  # replaced. "mixed" (some characters [MASK]) happens only when a random
  # replacement draws [MASK] itself (1 in ~90 here); per-character draws
  # would mix about a third of the two-character words.
  assert fates["mixed"] / total < 0.02
  assert 0.7 < fates["mask"] / total < 0.9
  assert fates["keep"] > 0 and fates["random"] > 0


def _run(tmp_path, tokenizer, name, **kwargs):
  raw = tmp_path / "raw.txt"
  raw.write_text("\n".join(_raw(SEGMENTED)) + "\n", encoding="utf-8")
  out = tmp_path / (name + ".tfrecord")
  options = options_lib.DataOptions(max_seq_length=32, dupe_factor=3,
                                    max_predictions_per_seq=8,
                                    log_examples=0, **kwargs)
  pipeline.run([str(raw)], [str(out)], tokenizer, options)
  return [r.numpy() for r in tf.data.TFRecordDataset(str(out))]


def test_deterministic_and_in_the_usual_format(tmp_path, tokenizer):
  seg = tmp_path / "seg.txt"
  seg.write_text("\n".join(SEGMENTED) + "\n", encoding="utf-8")
  first = _run(tmp_path, tokenizer, "a", word_boundaries="spaces",
               segmented_file=str(seg))
  second = _run(tmp_path, tokenizer, "b", word_boundaries="spaces",
                segmented_file=str(seg))
  assert first == second and first
  plain = _run(tmp_path, tokenizer, "c")
  example = tf.train.Example.FromString(first[0]).features.feature
  assert sorted(example) == sorted(
      tf.train.Example.FromString(plain[0]).features.feature)
  assert max(max(tf.train.Example.FromString(r).features.feature[
      "input_ids"].int64_list.value) for r in first) < len(tokenizer.vocab)
  # Another seed changes the masks; the default path differs from wwm.
  other = _run(tmp_path, tokenizer, "d", word_boundaries="spaces",
               segmented_file=str(seg), random_seed=7)
  assert other != first
  assert plain != first


def test_segmented_file_mismatch_names_file_and_line(tmp_path, tokenizer):
  seg = tmp_path / "seg.txt"
  lines = list(SEGMENTED)
  lines[2] = "上海 市 政府 召开 新闻 发布 ， 介绍 经济 发展 情况 。"  # 会 dropped
  seg.write_text("\n".join(lines) + "\n", encoding="utf-8")
  with pytest.raises(InputError, match=r"seg.txt:3: characters do not "
                     r"match the raw text"):
    _run(tmp_path, tokenizer, "e", word_boundaries="spaces",
         segmented_file=str(seg))


def test_bad_flag_combinations():
  with pytest.raises(InputError, match="--word_boundaries=foo"):
    options_lib.DataOptions(word_boundaries="foo").validate()
  with pytest.raises(InputError, match="--segmented_file needs"):
    options_lib.DataOptions(segmented_file="x").validate()
  with pytest.raises(InputError, match="--segmented_file: needs "
                     "--num_workers=1"):
    options_lib.DataOptions(word_boundaries="spaces", segmented_file="x",
                            num_workers=2).validate()
  # Without --segmented_file, word boundaries work in sharded mode
  # (tests/beam/pretraining_data_test.py: the Beam pipeline's examples).
  options_lib.DataOptions(word_boundaries="jieba", num_workers=2).validate()


def test_jieba_mode_uses_the_segmenter(monkeypatch, tokenizer):
  # A stand-in jieba (the real one is an optional extra): fixed cuts.
  fake = types.ModuleType("jieba")
  fake.setLogLevel = lambda level: None
  fake.cut = lambda text, HMM=True: ["中国", "人民", " ", "银行"]
  monkeypatch.setitem(sys.modules, "jieba", fake)
  ids = wb.make_tokenize_ids(tokenizer, "jieba")("中国人民 银行")
  assert [wb.is_continuation(i) for i in ids] == [False, True, False, True,
                                                  False, True]
