"""run_classifier.py --eval_every_n_steps with early stopping and best/."""

import json
import os

from tests.reliability import fixtures

ROWS = ["label\ttext", "pos\tgood fun", "neg\tmeh", "pos\tfun fun",
        "neg\tmeh meh", "pos\tgood", "neg\tmeh good", "pos\tfun",
        "neg\tmeh fun"]


def run_classifier(tmp_path, *extra):
  data = tmp_path / "data"
  data.mkdir(exist_ok=True)
  (data / "train.tsv").write_text("\n".join(ROWS) + "\n")
  (data / "dev.tsv").write_text("\n".join(ROWS[:5]) + "\n")
  vocab, config = fixtures.tiny_model_files(tmp_path, ["good", "fun", "meh"])
  return fixtures.run_script("run_classifier.py", fixtures.flag_args(
      task_name="TSV", data_dir=data, vocab_file=vocab,
      bert_config_file=config, output_dir=tmp_path / "out", do_train="true",
      do_eval="true", text_a_column="text", label_column="label",
      label_list="neg,pos", max_seq_length=8, train_batch_size=2,
      eval_batch_size=2, num_train_epochs=2, eval_every_n_steps=2) +
                             list(extra))


def test_unknown_metric_one_line_nothing_written(tmp_path):
  proc = run_classifier(tmp_path, "--early_stopping_metric=accuracy")
  assert fixtures.error_line(proc) == (
      "error: --early_stopping_metric=accuracy: evaluation does not produce "
      "it; it produces eval_accuracy, eval_loss, loss")
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
