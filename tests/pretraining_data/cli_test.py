"""The script end to end: original command lines, clean errors (subprocess)."""

import os
import subprocess
import sys

import pytest

import tokenization
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.golden import REPO_ROOT
from tests.pretraining_data import corpus
from tests.pretraining_data import records


def test_original_command_line(tmp_path):
  text = corpus.write_corpus(str(tmp_path / "in.txt"),
                             corpus.bbc_documents(8000, start=20))
  outputs = [str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")]
  proc = corpus.run_script("--input_file=" + text, "--output_file=" + ",".join(outputs),
                 "--vocab_file=" + corpus.minilm_vocab(),
                 "--do_lower_case=True", "--max_seq_length=64",
                 "--max_predictions_per_seq=10", "--masked_lm_prob=0.15",
                 "--random_seed=42", "--dupe_factor=3",
                 "--do_whole_word_mask=false")
  assert proc.returncode == 0, proc.stderr[-3000:]
  assert "*** Example ***" in proc.stderr and "summary:" in proc.stderr
  expected = [str(tmp_path / "x.tfrecord"), str(tmp_path / "y.tfrecord")]
  pipeline.run([text], expected,
               tokenization.FullTokenizer(corpus.minilm_vocab()),
               options_lib.DataOptions(max_seq_length=64,
                                       max_predictions_per_seq=10,
                                       random_seed=42, dupe_factor=3,
                                       log_examples=0))
  for ours, lib in zip(outputs, expected):
    assert records.read_examples(ours) == records.read_examples(lib)


@pytest.mark.parametrize("args,message", [
    (["--max_seq_length=3"], "error: --max_seq_length=3: must be at least 5"),
    (["--input_file=/nonexistent/x.txt"],
     "error: --input_file: '/nonexistent/x.txt' matches no file"),
    (["--masked_lm_prob=1.5"], "error: --masked_lm_prob=1.5: must be in"),
])
def test_bad_input_exits_with_one_line(tmp_path, args, message):
  text = corpus.write_corpus(str(tmp_path / "in.txt"),
                             corpus.bbc_documents(2000))
  out = str(tmp_path / "out.tfrecord")
  base = {"--input_file": text, "--output_file": out,
          "--vocab_file": corpus.minilm_vocab()}
  for arg in args:
    base[arg.split("=")[0]] = arg.split("=", 1)[1]
  proc = corpus.run_script(*["%s=%s" % kv for kv in base.items()])
  assert proc.returncode == 1
  assert message in proc.stderr
  assert "Traceback" not in proc.stderr
  assert not os.path.exists(out)


def test_kill_9_mid_write_leaves_no_output(tmp_path):
  """SIGKILL while records are being written: no output file appears."""
  import signal
  import time
  text = corpus.write_corpus(str(tmp_path / "in.txt"),
                             corpus.bbc_documents(150000, start=900))
  out_dir = tmp_path / "out"
  out_dir.mkdir()
  out = str(out_dir / "data.tfrecord")
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
  # Sharded mode writes while it computes, so the temporary file is open
  # for most of the run.
  proc = subprocess.Popen(
      [sys.executable, os.path.join(REPO_ROOT, "create_pretraining_data.py"),
       "--input_file=" + text, "--output_file=" + out,
       "--vocab_file=" + corpus.minilm_vocab(), "--dupe_factor=40",
       "--num_workers=2", "--shard_documents=4"],
      cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL,
      stderr=subprocess.DEVNULL, start_new_session=True)
  deadline = time.time() + 240
  try:
    while time.time() < deadline and proc.poll() is None:
      tmp = [n for n in os.listdir(out_dir) if ".tmp-" in n]
      if tmp and os.path.getsize(out_dir / tmp[0]) > 0:
        break
      time.sleep(0.01)
    assert proc.poll() is None, "finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # The script and its workers.
    proc.wait(timeout=60)
  finally:
    if proc.poll() is None:
      os.killpg(proc.pid, signal.SIGKILL)
  assert not os.path.exists(out)
  leftovers = os.listdir(out_dir)
  assert leftovers and all(".tmp-" in n for n in leftovers)
