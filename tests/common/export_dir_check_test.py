"""--export_dir that cannot be written is refused before training (issue 38:
a read-only --export_dir was found only after all the training steps)."""

import errno
import os
import tempfile

import pytest
import tensorflow as tf

from bert_tf2.common import InputError
from bert_tf2.common import saved_model


def test_read_only_file_system_is_refused(tmp_path, monkeypatch):
  # As root, permission bits do not stop a write: fake the file system's
  # answer (EROFS) where the export would write.
  def read_only(**kwargs):
    raise OSError(errno.EROFS, os.strerror(errno.EROFS), kwargs["dir"])
  monkeypatch.setattr(tempfile, "mkdtemp", read_only)
  export = str(tmp_path / "new" / "saved_model")
  with pytest.raises(InputError) as e:
    saved_model.check_export_dir(export)
  assert str(e.value) == ("--export_dir=%s: cannot write in %s: Read-only "
                          "file system" % (export, tmp_path))


def test_a_file_on_the_way_is_refused(tmp_path):
  (tmp_path / "f").write_text("x")
  export = str(tmp_path / "f" / "saved_model")
  with pytest.raises(InputError, match="f is not a directory"):
    saved_model.check_export_dir(export)


def test_a_writable_place_passes_and_is_left_clean(tmp_path):
  export = str(tmp_path / "a" / "b")
  assert saved_model.check_export_dir(export + "/") == export
  assert os.listdir(tmp_path) == []


def test_a_name_too_long_with_the_export_suffix_is_refused(tmp_path):
  """Issue 46: a 248-character --export_dir failed only after training,
  when ".tmp-export" made the name 259 bytes; refused up front, and by
  save_atomically itself (the predictors' export()) before saving."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  export = str(tmp_path / ("e" * 248))
  want = ("--export_dir=%s: the name eeeeeeeeeeeeeeeeeeeeeeee... is 248 "
          "bytes, 259 with the 11-character temporary suffix written beside "
          "it; the file system allows 255" % export)
  with pytest.raises(InputError) as e:
    saved_model.check_export_dir(export)
  assert str(e.value) == want
  module = tf.Module()
  with pytest.raises(InputError) as e:
    saved_model.save_atomically(module, export, {}, what="--export_dir")
  assert str(e.value) == want
  assert os.listdir(tmp_path) == []
  assert saved_model.check_export_dir(str(tmp_path / ("e" * 244))) == str(
      tmp_path / ("e" * 244))


def test_a_failed_export_leaves_no_partial_directory(tmp_path, monkeypatch):
  """Issue 63: an export that failed half-way (a full disk) left
  <export_dir>.tmp-export behind, and the disk full."""
  def fill_the_disk(module, path, signatures=None):
    del module, signatures
    os.makedirs(os.path.join(path, "variables"))
    with open(os.path.join(path, "variables", "part"), "wb") as f:
      f.write(b"x" * 1000)
    raise OSError(errno.ENOSPC, "No space left on device")

  monkeypatch.setattr(tf.saved_model, "save", fill_the_disk)
  export_dir = str(tmp_path / "export")
  with pytest.raises(OSError, match="No space left"):
    saved_model.save_atomically(tf.Module(), export_dir, {})
  assert sorted(os.listdir(tmp_path)) == []
