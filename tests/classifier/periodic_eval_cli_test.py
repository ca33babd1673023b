"""run_classifier.py --eval_every_n_steps with early stopping and best/."""

import json
import os
import subprocess
import sys

from tests.golden import REPO_ROOT

ROWS = ["label\ttext", "pos\tgood fun", "neg\tmeh", "pos\tfun fun",
        "neg\tmeh meh", "pos\tgood", "neg\tmeh good", "pos\tfun",
        "neg\tmeh fun"]


def run_classifier(tmp_path, *extra):
  data = tmp_path / "data"
  data.mkdir(exist_ok=True)
  (data / "train.tsv").write_text("\n".join(ROWS) + "\n")
  (data / "dev.tsv").write_text("\n".join(ROWS[:5]) + "\n")
  vocab = tmp_path / "vocab.txt"
  vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nfun\nmeh\n")
  config = tmp_path / "bert_config.json"
  config.write_text(json.dumps({
      "vocab_size": 7, "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 16,
      "max_position_embeddings": 16, "type_vocab_size": 2}))
  args = [sys.executable, os.path.join(REPO_ROOT, "run_classifier.py"),
          "--task_name=TSV", "--data_dir=%s" % data,
          "--vocab_file=%s" % vocab, "--bert_config_file=%s" % config,
          "--output_dir=%s" % (tmp_path / "out"), "--do_train=true",
          "--do_eval=true", "--text_a_column=text", "--label_column=label",
          "--label_list=neg,pos", "--max_seq_length=8",
          "--train_batch_size=2", "--eval_batch_size=2",
          "--num_train_epochs=2", "--eval_every_n_steps=2"] + list(extra)
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
  return subprocess.run(args, capture_output=True, text=True, env=env,
                        cwd=REPO_ROOT, timeout=300, check=False)


def test_unknown_metric_one_line_nothing_written(tmp_path):
  proc = run_classifier(tmp_path, "--early_stopping_metric=accuracy")
  assert proc.returncode == 1, proc.stderr[-2000:]
  errors = [l for l in proc.stderr.splitlines() if l.startswith("error: ")]
  assert errors == ["error: --early_stopping_metric=accuracy: evaluation "
                    "does not produce it; it produces eval_accuracy, "
                    "eval_loss, loss"], proc.stderr[-2000:]
  assert "Traceback" not in proc.stderr
  assert not os.path.exists(tmp_path / "out")


def test_stops_early_and_keeps_best(tmp_path):
  # Learning rate 0: eval_loss never improves after the first evaluation,
  # so patience 1 stops training at step 4 of 8.
  proc = run_classifier(tmp_path, "--learning_rate=0",
                        "--early_stopping_metric=eval_loss",
                        "--early_stopping_patience=1",
                        "--keep_best_checkpoint")
  assert proc.returncode == 0, proc.stderr[-3000:]
  out = tmp_path / "out"
  with open(out / "eval_history.jsonl") as f:
    history = [json.loads(line) for line in f]
  assert [r["global_step"] for r in history] == [2, 4]
  assert history[0]["eval_loss"] == history[1]["eval_loss"]
  with open(out / "best" / "best_metrics.json") as f:
    assert json.load(f) == history[0]
  assert os.path.exists(out / "best" / "model.ckpt-2.index")
  assert json.loads((out / "early_stopping.json").read_text())[
      "global_step"] == 4
  assert "global_step = 4\n" in (out / "eval_results.txt").read_text()
  assert not os.path.exists(out / "model.ckpt-8.index")
