"""run_ner.py as a user runs it: bad input -> one error line, exit 1."""

import json
import os
import subprocess
import sys

from tests.golden import REPO_ROOT


def test_cli_reports_tagless_line_with_file_and_line(tmp_path):
  data = tmp_path / "data"
  data.mkdir()
  (data / "train.txt").write_text("北 B-LOC\n京 I-LOC\n\n好\n")
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n北\n京\n好\n")
  config = tmp_path / "bert_config.json"
  config.write_text(json.dumps({
      "vocab_size": 7, "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 16,
      "max_position_embeddings": 16, "type_vocab_size": 2}))
  args = [sys.executable, os.path.join(REPO_ROOT, "run_ner.py"),
          "--data_dir=%s" % data, "--vocab_file=%s" % vocab,
          "--bert_config_file=%s" % config,
          "--output_dir=%s" % (tmp_path / "out"), "--do_train=true",
          "--max_seq_length=16", "--doc_stride=8"]
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
  proc = subprocess.run(args, capture_output=True, text=True, env=env,
                        cwd=REPO_ROOT, timeout=300, check=False)
  assert proc.returncode == 1, proc.stderr[-2000:]
  errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
  assert errors == ["error: %s:4: '好' has no tag (expected 'token tag')"
                    % (data / "train.txt")], proc.stderr[-2000:]
  assert "Traceback" not in proc.stderr
  assert not os.path.exists(tmp_path / "out" / "train.tf_record")
