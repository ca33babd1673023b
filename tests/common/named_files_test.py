"""bert_tf2.common.named_files: inside the directory after symlinks (the
refusal opens nothing), regular files, digests, checkpoint files."""

import hashlib
import os

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import named_files


def test_symlinks_are_followed_before_anything_is_opened(tmp_path):
  run = tmp_path / "run"
  run.mkdir()
  (tmp_path / "secret").write_text("outside")
  (run / "own.txt").write_text("inside")
  os.symlink(str(tmp_path / "secret"), str(run / "vocab.txt"))
  os.symlink("own.txt", str(run / "alias.txt"))  # Stays inside: fine.
  os.symlink(str(tmp_path), str(run / "up"))  # A directory link out.
  assert named_files.inside(str(run), str(run / "alias.txt"), "x")
  for name in ("vocab.txt", "up/secret", "../secret"):
    with pytest.raises(InputError) as e:
      named_files.inside(str(run), str(run / name), "vocabulary")
    assert "leads outside" in str(e.value) and "\n" not in str(e.value)
    assert "allow_outside=True" in str(e.value)
  with named_files.allowing_outside():
    assert named_files.inside(str(run), str(run / "vocab.txt"), "x")
  with pytest.raises(InputError):  # Only within the block.
    named_files.inside(str(run), str(run / "vocab.txt"), "vocabulary")


def test_digest_is_checked_and_cached_by_the_files_stat(tmp_path):
  path = tmp_path / "vocab.txt"
  path.write_bytes(b"[UNK]\n")
  digest = hashlib.sha256(b"[UNK]\n").hexdigest()
  named_files.check_digest(str(path), digest, "copy")
  path.write_bytes(b"[UNK]\nx\n")  # Another size: hashed again.
  with pytest.raises(InputError, match="is damaged"):
    named_files.check_digest(str(path), digest, "copy")
  os.mkfifo(str(tmp_path / "fifo"))
  with pytest.raises(InputError, match="not a regular file"):
    named_files.check_digest(str(tmp_path / "fifo"), digest, "copy")


def test_checkpoint_files_and_checkpoints_inside(tmp_path):
  run = tmp_path / "run"
  run.mkdir()
  for name in ("model.ckpt-2.index", "model.ckpt-2.data-00000-of-00001",
               "model.ckpt-20.index"):
    (run / name).write_bytes(b"x")
  prefix = str(run / "model.ckpt-2")
  assert named_files.checkpoint_files(prefix) == [
      prefix + ".index", prefix + ".data-00000-of-00001"]
  named_files.checkpoints_inside(str(run), str(run))
  (tmp_path / "other.index").write_bytes(b"x")
  os.symlink(str(tmp_path / "other.index"), str(run / "model.ckpt-9.index"))
  with pytest.raises(InputError, match="model.ckpt-9.index: the checkpoint "
                     "leads outside"):
    named_files.checkpoints_inside(str(run), str(run))
