"""The Beam reader cuts the corpus into the sharded mode's shards, reading
through Beam's filesystems (a document running across files included)."""

import pytest

from bert_tf2.beam import corpus
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import parallel


def test_shards_equal_the_sharded_modes(tmp_path):
  a = tmp_path / "a.txt"
  b = tmp_path / "b.txt"
  a.write_bytes(b"one.\r\ntwo.\n\nthree.\n\n\xffbad\n")  # No blank at the end:
  b.write_bytes(b"runs on.\n\nfour.\n\nfive.\n\nsix.\n\nseven.\n")  # joins b.
  paths = [str(a), str(b)]
  stats = documents.CorpusStats()
  local = list(enumerate(parallel.iter_shards(
      documents.iter_document_lines(documents.iter_lines(paths, stats)), 2)))
  beam_stats = documents.CorpusStats()
  assert list(corpus.read_shards(paths, 2, beam_stats)) == local
  assert local[1][1][0] == ["bad", "runs on."]
  assert beam_stats.to_dict() == stats.to_dict()
  assert stats.undecodable_bytes == 1


def test_a_missing_file_or_no_text_is_one_error_naming_it(tmp_path):
  missing = str(tmp_path / "gone.txt")
  with pytest.raises(InputError, match="--input_file: cannot read %s" %
                     missing):
    list(corpus.read_shards([missing], 2))
  blank = tmp_path / "blank.txt"
  blank.write_text("\n \n")
  with pytest.raises(InputError, match="no text in %s" % blank):
    list(corpus.read_shards([str(blank)], 2))
