"""Vocabulary files: ids, odd lines, and clear errors for bad files."""

import subprocess
import sys

import pytest

import tokenization
from bert_tf2.common import InputError
from tests.golden import REPO_ROOT


def test_ids_are_line_positions(small_vocab):
  vocab = tokenization.load_vocab(small_vocab)
  assert list(vocab.items())[:3] == [("[UNK]", 0), ("[CLS]", 1), ("[SEP]", 2)]
  assert vocab["lowest"] == 12 and len(vocab) == 13


def test_lines_are_stripped_and_crs_removed(tmp_path):
  path = tmp_path / "v.txt"
  path.write_bytes(b"[UNK]\n  a  \r\nb\rc\n\n\xe3\x80\x80d\nlast")
  vocab = tokenization.load_vocab(str(path))
  assert list(vocab) == ["[UNK]", "a", "bc", "", "d", "last"]


def test_duplicates_keep_first_id_and_shift_later_ones(tmp_path, caplog):
  path = tmp_path / "v.txt"
  path.write_text("[UNK]\na\nb\na\nc\n", encoding="utf-8")
  vocab = tokenization.load_vocab(str(path))
  assert dict(vocab) == {"[UNK]": 0, "a": 1, "b": 2, "c": 3}
  assert "line 4 is a duplicate of line 2" in caplog.text


def test_utf8_byte_order_mark_is_dropped_with_a_warning(tmp_path, caplog):
  """Issue 46: a vocab.txt saved with a BOM read its first token as
  '\\ufeff[PAD]'; now the same ids and tokens as without the mark."""
  text = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\n"
  plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
  plain.write_bytes(text.encode("utf-8"))
  marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
  vocab = tokenization.load_vocab(str(marked))
  assert dict(vocab) == dict(tokenization.load_vocab(str(plain)))
  assert list(vocab)[0] == "[PAD]"
  assert "marked.txt: starts with a UTF-8 byte-order mark" in caplog.text
  tokenizer = tokenization.FullTokenizer(str(marked))
  assert tokenizer.convert_ids_to_tokens([0]) == ["[PAD]"]
  assert tokenizer.convert_tokens_to_ids(tokenizer.tokenize("hellos")) == [
      4, 5]


def test_byte_order_mark_is_reported_once_per_file(tmp_path, caplog):
  """Issue 63: a script reads its vocabulary several times; the warning
  was printed for each read."""
  marked = tmp_path / "marked.txt"
  marked.write_bytes(b"\xef\xbb\xbf[PAD]\n[UNK]\n")
  for _ in range(3):
    tokenization.load_vocab(str(marked))
  assert caplog.text.count("byte-order mark") == 1, caplog.text
  marked.write_bytes(b"\xef\xbb\xbf[PAD]\n[UNK]\nnew\n")  # Rewritten.
  tokenization.load_vocab(str(marked))
  assert caplog.text.count("byte-order mark") == 2, caplog.text


def test_missing_file_is_a_clear_error(tmp_path):
  with pytest.raises(InputError, match=r"--vocab_file=.*nope.txt: file not "
                     r"found"):
    tokenization.FullTokenizer(str(tmp_path / "nope.txt"))


def test_directory_is_a_clear_error(tmp_path):
  with pytest.raises(InputError, match="is a directory"):
    tokenization.load_vocab(str(tmp_path))


def test_empty_file_is_a_clear_error(tmp_path):
  path = tmp_path / "v.txt"
  path.write_bytes(b"")
  with pytest.raises(InputError, match="file is empty"):
    tokenization.load_vocab(str(path))


def test_bad_encoding_names_the_line(tmp_path):
  path = tmp_path / "v.txt"
  path.write_bytes(b"[UNK]\nok\nbad\xff\xfe\n")
  with pytest.raises(InputError, match=r"v.txt: line 3 is not valid UTF-8"):
    tokenization.load_vocab(str(path))


def test_missing_unk_warns_and_fails_clearly_on_unknown_words(
    tmp_path, caplog):
  path = tmp_path / "v.txt"
  path.write_text("hello\nworld\n", encoding="utf-8")
  tok = tokenization.FullTokenizer(str(path))
  assert "has no [UNK] entry" in caplog.text
  assert tok.tokenize_to_ids("hello world") == [0, 1]
  assert tok.tokenize("hello there") == ["hello", "[UNK]"]
  with pytest.raises(KeyError, match=r"'\[UNK\]' is not in the vocabulary"):
    tok.tokenize_to_ids("hello there")


def test_preserve_unused_tokens_flag_is_read_like_the_original(tmp_path):
  path = tmp_path / "v.txt"
  path.write_text("[UNK]\n[unused1]\n[\n]\nunused\n##1\n", encoding="utf-8")
  code = (
      "import sys; from absl import flags; import tokenization; "
      "flags.FLAGS(sys.argv[1:]); "
      "print(tokenization.FullTokenizer(%r).tokenize('[unused1]'), "
      "tokenization.FullTokenizer(%r, preserve_unused_tokens=False)"
      ".tokenize('[unused1]'))" % (str(path), str(path)))
  out = subprocess.run(
      [sys.executable, "-c", code, "prog", "--preserve_unused_tokens=true"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
  assert out.strip() == (
      "['[unused1]'] ['[', 'unused', '##1', ']']")
