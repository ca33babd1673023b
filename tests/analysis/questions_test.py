"""The measuring code of docs/questions.md, on a tiny random BERT.

Each command runs on a tiny checkpoint written here; the pure functions are
checked against cases with a known answer (the model's own attention
probabilities, orthogonal embedding tables, the FLOP crossover).
"""

import json
import os

import numpy as np
import pytest

import modeling
from bert_tf2.analysis import questions
from tests.analysis import synthetic
from tests.pretraining_data import corpus

TINY = {"vocab_size": 30522, "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 32,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 24,
        "type_vocab_size": 2, "initializer_range": 0.2}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
  """(config file, checkpoint prefix, model) of a random tiny BERT."""
  tmp = str(tmp_path_factory.mktemp("tiny"))
  config_file = os.path.join(tmp, "bert_config.json")
  with open(config_file, "w") as f:
    json.dump(TINY, f)
  model, _ = questions.load_model(config_file, None)
  variables = {"bert/" + name: np.asarray(v)
               for name, v in model.original_variables().items()}
  prefix = synthetic.write_checkpoint(os.path.join(tmp, "bert_model.ckpt"),
                                      variables)
  return config_file, prefix, model


def test_attention_logits_give_the_models_attention(tiny):
  _, prefix, model = tiny
  ids = np.array([[101, 2023, 2003, 1037, 3231, 102]], np.int32)
  out = model({"input_ids": ids}, return_attention_probs=True)
  read = lambda n: np.asarray(model.original_variables()[n])
  scope = "encoder/layer_1/attention/self/"
  logits = questions.attention_logits(
      np.asarray(out["encoder_outputs"][0])[0], read(scope + "query/kernel"),
      read(scope + "query/bias"), read(scope + "key/kernel"),
      read(scope + "key/bias"), 4)
  scaled = logits / np.sqrt(16 // 4)
  probs = np.exp(scaled - scaled.max(-1, keepdims=True))
  probs /= probs.sum(-1, keepdims=True)
  np.testing.assert_allclose(probs, np.asarray(out["attention_probs"][1])[0],
                             atol=1e-5)


def test_softmax_stats_uniform_and_saturated():
  ent, sat = questions.softmax_stats(np.zeros([3, 8]))
  assert abs(ent - np.log(8)) < 1e-9 and sat == 0.0
  ent, sat = questions.softmax_stats(np.array([[50.0, 0.0, 0.0]]))
  assert ent < 1e-6 and sat == 1.0


def test_decode_sums_exact_on_separated_tables_and_fails_on_shared_rows():
  rows = np.eye(12) * 3.0
  word, position, segment = rows[:6], rows[6:10], rows[10:]
  tokens, positions, segments = np.arange(6), np.arange(6) % 4, np.arange(6) % 2
  assert questions.decode_sums(word, position, segment, tokens, positions,
                               segments) == (1.0, 1.0, 1.0, 1.0)
  twins = word.copy()
  twins[1] = twins[0]  # Tokens 0 and 1 cannot be told apart.
  acc = questions.decode_sums(twins, position, segment, tokens, positions,
                              segments)
  assert acc[0] == 5 / 6 and acc[1] == 1.0


def test_flops_cross_at_2d_plus_dff():
  n = questions.crossover_length(384, 1536)
  att, dense = questions.layer_flops(n, 384, 1536)
  assert att == dense
  att, dense = questions.layer_flops(n - 1, 384, 1536)
  assert att < dense


def test_tied_report_finds_a_separate_output_matrix():
  shapes = {questions.WORD: [10, 4], "cls/predictions/output_bias": [10],
            "cls/predictions/transform/dense/kernel": [4, 4]}
  assert questions.tied_report(shapes)["tied"]
  # The optimizer's slots of the word table are not output layers.
  shapes[questions.WORD + "/adam_m"] = [10, 4]
  shapes[questions.WORD + "/adam_v"] = [10, 4]
  assert questions.tied_report(shapes)["tied"]
  shapes["cls/predictions/output_weights"] = [10, 4]
  report = questions.tied_report(shapes)
  assert not report["tied"]
  assert report["output_matrices"] == ["bert/embeddings/word_embeddings",
                                       "cls/predictions/output_weights"]


def test_our_pretraining_model_ties_the_mlm_head():
  config = modeling.BertConfig(**TINY)
  check = questions.model_tie_check(config)
  assert check["vocab_matrices"] == ["embeddings/word_embeddings"]
  # Every row of the table gets a gradient from the logits, though the
  # input only uses id 0: the table is the output layer.
  assert check["logits_grad_rows"] == TINY["vocab_size"]


def test_limit_cases(tiny):
  _, _, model = tiny
  cases = dict(questions.limit_cases(model, modeling.BertConfig(**TINY)))
  assert "longer than max_position_embeddings=24" in cases["25 positions"]
  assert cases["segment id 2"].startswith("ran (no error)")
  assert cases["segment id 2"].endswith("at most 0")


def test_pooling_scores():
  vectors = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
  assert questions.nearest_neighbour_accuracy(vectors, [0, 0, 1, 1]) == 1.0
  assert questions.pair_auc(vectors, [0, 0, 1, 1]) == 1.0
  assert questions.pair_auc(vectors, [0, 1, 0, 1]) < 0.5


@pytest.mark.parametrize("command", sorted(questions.COMMANDS))
def test_every_command_runs_on_a_tiny_checkpoint(tiny, command, capsys):
  config_file, prefix, _ = tiny
  vocab = corpus.minilm_vocab()
  args = {
      "tied": ["--init_checkpoint=" + prefix,
               "--bert_config_file=" + config_file],
      "scale": ["--bert_config_file=" + config_file,
                "--init_checkpoint=" + prefix, "--vocab_file=" + vocab,
                "--sentences=3", "--max_seq_length=24"],
      "decode": ["--init_checkpoint=" + prefix, "--samples=20"],
      "limits": ["--bert_config_file=" + config_file],
      "flops": [],
      "pooling": ["--bert_config_file=" + config_file,
                  "--init_checkpoint=" + prefix, "--vocab_file=" + vocab,
                  "--per_category=2", "--max_seq_length=24"],
  }[command]
  questions.main([command] + args)
  out = capsys.readouterr().out
  assert out.count("\n|") >= 2, out
