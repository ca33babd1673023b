"""bert_tf2.common.cli: OS and TensorFlow errors as one line (issue 29 item 3).

The scripts' runs with injected faults are in
tests/reliability/output_dir_faults_test.py; here, the lines themselves.
"""

import errno
import json

import pytest
import tensorflow as tf

from bert_tf2.common import cli
from bert_tf2.common import InputError

_CLUSTER = {"worker": ["127.0.0.1:2001", "127.0.0.1:2002", "127.0.0.1:2003"]}


def _config(index):
  return json.dumps({"cluster": _CLUSTER,
                     "task": {"type": "worker", "index": index}})


def test_os_error_names_the_path():
  e = OSError(errno.ENOSPC, "No space left on device", "/out/x.tfrecord")
  assert cli.os_error_message(e) == (
      "/out/x.tfrecord: No space left on device (the disk is full)")
  e = PermissionError(errno.EACCES, "Permission denied")
  assert cli.os_error_message(e, "/out") == "/out: Permission denied"


def test_op_error_keeps_the_first_line():
  e = tf.errors.DataLossError(None, None, "corrupted record at 12 in /d/a.tfr"
                              "\n\tdetails")
  assert cli.op_error_message(e) == (
      "DataLossError: corrupted record at 12 in /d/a.tfr")


def test_dead_peer_is_named_with_its_address():
  e = tf.errors.UnavailableError(
      None, None, "Graph execution error:\n\nDetected at node allreduce\n"
      "From /job:worker/replica:0/task:2:\nConnection reset by peer")
  line = cli.peer_error_message(e, _config(0))
  assert line.startswith("task worker 2 (127.0.0.1:2003) of this "
                         "multi-worker job is unreachable"), line
  assert "(it died or lost its network; UnavailableError)" in line
  assert "\n" not in line


def test_dead_peer_not_named_lists_the_peers():
  e = tf.errors.UnavailableError(None, None, "Graph execution error:")
  line = cli.peer_error_message(e, _config(1))
  assert line.startswith("a peer task (one of worker 0 (127.0.0.1:2001), "
                         "worker 2 (127.0.0.1:2003)) of this"), line


def test_peer_message_only_for_multi_worker_collective_errors():
  unavailable = tf.errors.UnavailableError(None, None, "x")
  assert cli.peer_error_message(unavailable, "") is None
  assert cli.peer_error_message(unavailable, json.dumps(
      {"cluster": {"worker": ["a:1"]},
       "task": {"type": "worker", "index": 0}})) is None
  assert cli.peer_error_message(
      tf.errors.NotFoundError(None, None, "/job:worker/replica:0/task:1"),
      _config(0)) is None


def test_op_error_drops_the_eager_op_noise():
  """As a real full tmpfs gave it, from SaveV2."""
  e = tf.errors.ResourceExhaustedError(
      None, None, "{{function_node __wrapped__SaveV2_dtypes_76_device_/job:"
      "localhost/replica:0/task:0/device:CPU:0}} /o/model.ckpt-7.tmp-1.data-"
      "00000-of-00001.tempstate1; No space left on device [Op:SaveV2]")
  assert cli.op_error_message(e) == (
      "ResourceExhaustedError: /o/model.ckpt-7.tmp-1.data-00000-of-00001."
      "tempstate1; No space left on device")


def _run_guarded(main):
  with pytest.raises(SystemExit) as e:
    cli._guarded(main)(["script.py"])  # pylint: disable=protected-access
  return e.value.code


def test_ctrl_c_outside_training_is_one_line(capfd):
  # Issue 38: Ctrl-C during export was a KeyboardInterrupt traceback.
  def main(_):
    raise KeyboardInterrupt()
  assert _run_guarded(main) == 130
  out, err = capfd.readouterr()
  assert out == ""
  assert err == ("error: interrupted (Ctrl-C); files completed before it are "
                 "kept, the one being written is not used\n")


def test_error_is_printed_once(capfd, caplog):
  # Issue 38: a log line "E... cli.py] msg", then "error: msg".
  def main(_):
    raise InputError("--flag=x: bad")
  with caplog.at_level("ERROR"):
    assert _run_guarded(main) == 1
  out, err = capfd.readouterr()
  assert (out, err) == ("", "error: --flag=x: bad\n")
  assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_require_output_file(tmp_path):
  """Issue 46: an output path that cannot be written is refused up front,
  naming the flag: a missing directory, a file in the directory's place,
  a directory in the file's place, a name too long with the temporary
  suffix the atomic writer adds ("<name>.tmp-<12 hex>")."""
  (tmp_path / "file").write_text("x")
  (tmp_path / "dir").mkdir()
  cases = [
      (tmp_path / "no" / "out.txt", "directory %s does not exist"
       % (tmp_path / "no")),
      (tmp_path / "file" / "out.txt", "directory %s is not a directory"
       % (tmp_path / "file")),
      (tmp_path / "dir", "is a directory, expected a file"),
      (tmp_path / ("b" * 239), "is 239 bytes, 256 with the 17-character "
       "temporary suffix written beside it; the file system allows 255"),
      (tmp_path / ("c" * 256) / "out.txt", "is 256 bytes; the file system "
       "allows 255"),
  ]
  for path, message in cases:
    with pytest.raises(InputError) as raised:
      cli.require_output_file("output_file", str(path))
    assert str(raised.value).startswith("--output_file=%s: " % path)
    assert message in str(raised.value)
  cli.require_output_file("output_file", str(tmp_path / ("d" * 238)))
  with pytest.raises(InputError, match="--output_file is required"):
    cli.require_output_file("output_file", "")
