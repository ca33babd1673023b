"""Bad input: clear InputErrors naming the flag or file, nothing half-written."""

import os

import pytest

import tokenization
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from bert_tf2.pretraining_data import writer
from tests.pretraining_data import corpus
from tests.pretraining_data import records

_SMALL_OPTIONS = dict(dupe_factor=2, max_seq_length=32, log_examples=0)


@pytest.fixture(scope="module")
def tokenizer():
  return tokenization.FullTokenizer(corpus.minilm_vocab())


@pytest.fixture()
def text_file(tmp_path):
  return corpus.write_corpus(str(tmp_path / "in.txt"),
                             corpus.bbc_documents(3000, start=50))


def test_glob_matching_nothing(tmp_path, text_file):
  with pytest.raises(InputError, match=r"--input_file: .*nothing\*.txt.* "
                     "matches no file"):
    documents.expand_input_patterns(
        "input_file", text_file + "," + str(tmp_path / "nothing*.txt"))


def test_glob_order_is_the_original_listing_order(tmp_path):
  import tensorflow as tf
  for name in ["b", "a", "c"]:
    (tmp_path / (name + ".txt")).write_text(name)
  pattern = str(tmp_path / "*.txt")
  assert documents.expand_input_patterns("input_file", pattern) == (
      tf.io.gfile.glob(pattern))


def test_directory_and_unreadable_inputs(tmp_path):
  (tmp_path / "dir.txt").mkdir()
  with pytest.raises(InputError, match="dir.txt is a directory"):
    documents.expand_input_patterns("input_file", str(tmp_path / "dir.txt"))
  gone = str(tmp_path / "gone.txt")
  with pytest.raises(InputError, match=r"--input_file: cannot read .*gone"):
    list(documents.iter_lines([gone], documents.CorpusStats()))


@pytest.mark.parametrize("missing", ["[CLS]", "[SEP]", "[MASK]", "[UNK]"])
def test_vocab_lacking_special_token(tmp_path, text_file, missing):
  with open(corpus.minilm_vocab(), encoding="utf-8") as f:
    lines = [l for l in f.read().split("\n") if l != missing]
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("\n".join(lines), encoding="utf-8")
  tok = tokenization.FullTokenizer(str(vocab))
  with pytest.raises(InputError, match=r"--vocab_file=.*vocab.txt: "
                     r"vocabulary lacks \%s" % missing):
    pipeline.run([text_file], [str(tmp_path / "out.tfrecord")], tok,
                 options_lib.DataOptions(**_SMALL_OPTIONS))
  assert not os.path.exists(tmp_path / "out.tfrecord")


@pytest.mark.parametrize("flag,value,message", [
    ("max_seq_length", 4, "--max_seq_length=4: must be at least 5"),
    ("max_seq_length", -1, "--max_seq_length=-1"),
    ("max_predictions_per_seq", 0, "--max_predictions_per_seq=0"),
    ("masked_lm_prob", 1.5, "--masked_lm_prob=1.5: must be in"),
    ("masked_lm_prob", -0.1, "--masked_lm_prob=-0.1"),
    ("short_seq_prob", 2.0, "--short_seq_prob=2.0"),
    ("dupe_factor", 0, "--dupe_factor=0"),
    ("num_workers", 0, "--num_workers=0"),
    ("shard_documents", 1, "--shard_documents=1"),
])
def test_bad_flag_values(flag, value, message):
  with pytest.raises(InputError) as e:
    options_lib.DataOptions(**{flag: value}).validate()
  assert message in str(e.value)


def test_bad_output_files(tmp_path, text_file):
  with pytest.raises(InputError, match="does not exist"):
    options_lib.check_output_files([str(tmp_path / "no" / "out")], [])
  out = str(tmp_path / "o.tfrecord")
  with pytest.raises(InputError, match="listed twice"):
    options_lib.check_output_files([out, out], [])
  with pytest.raises(InputError, match="also an input file"):
    options_lib.check_output_files([text_file], [text_file])
  with pytest.raises(InputError, match="empty file name"):
    options_lib.check_output_files([out, ""], [])


def test_undecodable_bytes_are_dropped_and_counted(tmp_path, tokenizer):
  clean = "Caf\u00e9 society news.\nSecond line here.\n\nNext doc \u4e2d.\n"
  dirty = clean.encode("utf-8")
  dirty = dirty.replace(b"society", b"soc\xffiety").replace(
      b"Next", b"\xc3Ne\x80\x80xt") + b"trailing \xe4\xb8\n"
  (tmp_path / "dirty.txt").write_bytes(dirty)
  (tmp_path / "clean.txt").write_text(clean + "trailing \n",
                                      encoding="utf-8")
  opts = options_lib.DataOptions(**_SMALL_OPTIONS)
  out_dirty = str(tmp_path / "dirty.tfrecord")
  out_clean = str(tmp_path / "clean.tfrecord")
  stats = pipeline.run([str(tmp_path / "dirty.txt")], [out_dirty], tokenizer,
                       opts)
  pipeline.run([str(tmp_path / "clean.txt")], [out_clean], tokenizer, opts)
  assert stats.undecodable_bytes == 6
  assert records.read_examples(out_dirty) == records.read_examples(out_clean)


def test_empty_corpus_is_an_input_error(tmp_path, tokenizer):
  empty = tmp_path / "empty.txt"
  empty.write_bytes(b"\n\n   \n\x01\x02\n\xff\xfe\n")
  out = tmp_path / "out.tfrecord"
  with pytest.raises(InputError, match="--input_file: no text"):
    pipeline.run([str(empty)], [str(out)], tokenizer,
                 options_lib.DataOptions(**_SMALL_OPTIONS))
  assert sorted(os.listdir(tmp_path)) == ["empty.txt"]


def test_failure_while_writing_leaves_no_output(tmp_path, text_file,
                                                tokenizer, monkeypatch):
  outputs = [str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")]
  with open(outputs[0], "wb") as f:
    f.write(b"old")
  real_write = writer.RoundRobinWriter.write
  calls = []

  def failing_write(self, record):
    calls.append(1)
    if len(calls) == 3:
      raise OSError("disk full")
    real_write(self, record)

  monkeypatch.setattr(writer.RoundRobinWriter, "write", failing_write)
  with pytest.raises(OSError, match="disk full"):
    pipeline.run([text_file], outputs, tokenizer,
                 options_lib.DataOptions(**_SMALL_OPTIONS))
  assert sorted(os.listdir(tmp_path)) == ["a.tfrecord", "in.txt"]
  with open(outputs[0], "rb") as f:
    assert f.read() == b"old"
