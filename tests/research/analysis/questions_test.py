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
from bert_research.analysis.questions import cli
from bert_research.analysis.questions import common
from bert_research.analysis.questions import decode
from bert_research.analysis.questions import flops
from bert_research.analysis.questions import layers
from bert_research.analysis.questions import limits
from bert_research.analysis.questions import long_text
from bert_research.analysis.questions import masking
from bert_research.analysis.questions import nonlinearity
from bert_research.analysis.questions import pooling
from bert_research.analysis.questions import scale
from bert_research.analysis.questions import self_attention
from bert_research.analysis.questions import tied
from tests.research.analysis import synthetic
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
  model, _ = common.load_model(config_file, None)
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
  logits = scale.attention_logits(
      np.asarray(out["encoder_outputs"][0])[0], read(scope + "query/kernel"),
      read(scope + "query/bias"), read(scope + "key/kernel"),
      read(scope + "key/bias"), 4)
  scaled = logits / np.sqrt(16 // 4)
  probs = np.exp(scaled - scaled.max(-1, keepdims=True))
  probs /= probs.sum(-1, keepdims=True)
  np.testing.assert_allclose(probs, np.asarray(out["attention_probs"][1])[0],
                             atol=1e-5)


def test_projection_free_attention_is_the_model_with_identity_q_and_k(tiny):
  # Q = K = V = input is BERT's attention with identity query / key
  # kernels and zero biases: set them in a copy of the tiny model and its
  # own attention probabilities are what the function computes.
  config_file, prefix, _ = tiny
  model, _ = common.load_model(config_file, prefix)
  weights = model.original_variables()
  scope = "encoder/layer_1/attention/self/"
  for part in ("query", "key"):
    weights[scope + part + "/kernel"].assign(np.eye(16, dtype=np.float32))
    weights[scope + part + "/bias"].assign(np.zeros(16, np.float32))
  ids = np.array([[101, 2023, 2003, 1037, 3231, 102]], np.int32)
  out = model({"input_ids": ids}, return_attention_probs=True)
  free = self_attention.projection_free_attention(
      np.asarray(out["encoder_outputs"][0])[0], 4)
  np.testing.assert_allclose(free, np.asarray(out["attention_probs"][1])[0],
                             atol=1e-5)


def tiny_attention(tiny, kind, mask=None):
  """The tiny model's layer-0 attention probabilities [heads, S, S] under
  nonlinearity_patch(kind)."""
  _, _, model = tiny
  ids = np.array([[101, 2023, 2003, 1037, 3231, 102]], np.int32)
  features = {"input_ids": ids}
  if mask is not None:
    features["input_mask"] = np.array([mask], np.int32)
  with nonlinearity.nonlinearity_patch(kind):
    out = model(features, return_attention_probs=True)
  return np.asarray(out["attention_probs"][0])[0]


def test_softmax_replacements_inside_the_model(tiny):
  mask = [1, 1, 1, 1, 0, 0]
  uniform = tiny_attention(tiny, "softmax -> uniform", mask)
  np.testing.assert_allclose(uniform[..., :4], 0.25, atol=1e-6)
  np.testing.assert_allclose(uniform[..., 4:], 0.0, atol=1e-6)
  linear = tiny_attention(tiny, "softmax -> shifted linear", mask)
  np.testing.assert_allclose(linear.sum(-1), 1.0, atol=1e-5)
  assert linear.min() >= 0 and np.abs(linear[..., 4:]).max() < 1e-6
  # Linear in the scores: the ratios of (weight - the row's smallest) are
  # those of the softmax's log-probabilities shifted the same way.
  logp = np.log(tiny_attention(tiny, "as trained", mask)[..., :4])
  shifted = logp - logp.min(-1, keepdims=True)
  np.testing.assert_allclose(linear[..., :4],
                             shifted / shifted.sum(-1, keepdims=True),
                             atol=1e-4)


def test_fixed_scale_layer_norm_is_layer_norm_at_the_rows_own_scale():
  from modeling import ops  # pylint: disable=g-import-not-at-top
  rng = np.random.RandomState(0)
  x, gamma, beta = rng.normal(size=(1, 8)), rng.normal(size=8), rng.normal(
      size=8)
  exact = np.asarray(ops.layer_norm(x.astype(np.float32), gamma, beta))
  fixed = np.asarray(nonlinearity.fixed_scale_layer_norm(x, gamma, beta,
                                                      x.std()))
  np.testing.assert_allclose(fixed, exact, atol=1e-5)
  # And affine in x: the division by each token's spread is what it drops.
  f = lambda v: np.asarray(nonlinearity.fixed_scale_layer_norm(v, gamma, beta,
                                                            2.0))
  y = rng.normal(size=(1, 8))
  np.testing.assert_allclose(f(x + y) - f(y), f(x) - f(0 * x), atol=1e-12)


def test_layer_norm_calibration_records_every_layer_norm(tiny):
  _, _, model = tiny
  record = {}
  with nonlinearity.nonlinearity_patch("as trained", record=record):
    model({"input_ids": np.array([[101, 2023, 2003, 102]], np.int32)})
  assert len(record) == 1 + 2 * TINY["num_hidden_layers"]
  assert all(len(v) == 4 for v in record.values())


def test_self_weight_against_known_maps():
  n = 5
  assert self_attention.self_weight(np.eye(n)) == (1.0, 1.0)
  uniform = self_attention.self_weight(np.full((n, n), 1.0 / n))
  assert uniform[0] == pytest.approx(1.0 / n)
  shifted = np.roll(np.eye(n), 1, axis=1)  # Every token on its neighbour.
  assert self_attention.self_weight(shifted) == (0.0, 0.0)
  # Without projections a token's logit with itself is its squared norm,
  # the largest when the rows have equal norms (Cauchy-Schwarz).
  rows = np.random.RandomState(0).normal(size=(12, 32))
  rows *= 8.0 / np.linalg.norm(rows, axis=1, keepdims=True)
  assert self_attention.self_weight(
      self_attention.projection_free_attention(rows, 1))[1] == 1.0


def test_softmax_stats_uniform_and_saturated():
  ent, sat = scale.softmax_stats(np.zeros([3, 8]))
  assert abs(ent - np.log(8)) < 1e-9 and sat == 0.0
  ent, sat = scale.softmax_stats(np.array([[50.0, 0.0, 0.0]]))
  assert ent < 1e-6 and sat == 1.0


def test_decode_sums_exact_on_separated_tables_and_fails_on_shared_rows():
  rows = np.eye(12) * 3.0
  word, position, segment = rows[:6], rows[6:10], rows[10:]
  tokens, positions, segments = np.arange(6), np.arange(6) % 4, np.arange(6) % 2
  assert decode.decode_sums(word, position, segment, tokens, positions,
                               segments) == (1.0, 1.0, 1.0, 1.0)
  twins = word.copy()
  twins[1] = twins[0]  # Tokens 0 and 1 cannot be told apart.
  acc = decode.decode_sums(twins, position, segment, tokens, positions,
                              segments)
  assert acc[0] == 5 / 6 and acc[1] == 1.0


def test_flops_cross_at_2d_plus_dff():
  n = flops.crossover_length(384, 1536)
  att, dense = flops.layer_flops(n, 384, 1536)
  assert att == dense
  att, dense = flops.layer_flops(n - 1, 384, 1536)
  assert att < dense


def test_tied_report_finds_a_separate_output_matrix():
  shapes = {common.WORD: [10, 4], "cls/predictions/output_bias": [10],
            "cls/predictions/transform/dense/kernel": [4, 4]}
  assert tied.tied_report(shapes)["tied"]
  # The optimizer's slots of the word table are not output layers.
  shapes[common.WORD + "/adam_m"] = [10, 4]
  shapes[common.WORD + "/adam_v"] = [10, 4]
  assert tied.tied_report(shapes)["tied"]
  shapes["cls/predictions/output_weights"] = [10, 4]
  report = tied.tied_report(shapes)
  assert not report["tied"]
  assert report["output_matrices"] == ["bert/embeddings/word_embeddings",
                                       "cls/predictions/output_weights"]


def test_tied_says_there_is_no_head_rather_than_false(tiny, capsys):
  # A checkpoint saved without cls/predictions/ (all-MiniLM-L6-v2, the tiny
  # one here) has nothing to tie: "False" would read as "not tied".
  _, prefix, _ = tiny
  cli.main(["tied", "--init_checkpoint=" + prefix])
  out = capsys.readouterr().out
  assert "no MLM head saved" in out
  assert "MLM head tied to the word table: no MLM head saved" in out
  assert "False" not in out


def test_our_pretraining_model_ties_the_mlm_head():
  config = modeling.BertConfig(**TINY)
  check = tied.model_tie_check(config)
  assert check["vocab_matrices"] == ["embeddings/word_embeddings"]
  # Every row of the table gets a gradient from the logits, though the
  # input only uses id 0: the table is the output layer.
  assert check["logits_grad_rows"] == TINY["vocab_size"]


def test_limit_cases(tiny):
  _, _, model = tiny
  cases = dict(limits.limit_cases(model, modeling.BertConfig(**TINY)))
  assert "longer than max_position_embeddings=24" in cases["25 positions"]
  assert cases["segment id 2"].startswith("ran (no error)")
  assert cases["segment id 2"].endswith("at most 0")


def bag_of_words_features(tiny, zero_positions):
  """sentence_features of one 6-word sentence on the tiny model, with its
  position table as trained or all zeros."""
  config_file, prefix, _ = tiny
  model, _ = common.load_model(config_file, prefix)
  if zero_positions:
    table = model.embeddings.position_embeddings
    table.assign(np.zeros(table.shape, np.float32))
  pieces = [[2000 + i] for i in range(5)] + [[3000, 3001]]
  return layers.sentence_features(
      model, np.asarray(model.embeddings.word_embeddings), pieces, 101, 102,
      np.random.RandomState(0), max_pairs=10)


def test_without_position_embeddings_every_layer_is_a_bag_of_words(tiny):
  # Self-attention is permutation-equivariant: with the position table
  # zeroed, shuffling the words moves each token's vector with it at every
  # layer (cosine 1), so the shuffle measure reads position information
  # only; with the table as initialised the vectors change from layer 0 on.
  bag = bag_of_words_features(tiny, zero_positions=True)
  np.testing.assert_allclose(bag["shuffle_cos"], 1.0, atol=1e-5)
  with_positions = bag_of_words_features(tiny, zero_positions=False)
  assert np.all(with_positions["shuffle_cos"][0] > 1 - 1e-6)  # Word rows.
  assert np.all(with_positions["shuffle_cos"][1:].mean(axis=1) < 0.99)
  assert with_positions["vectors"].shape == (2 + TINY["num_hidden_layers"],
                                             7, TINY["hidden_size"])
  assert with_positions["position"].tolist() == list(range(1, 8))


def test_order_pairs_are_inside_the_sentence_and_both_ways():
  rng = np.random.RandomState(0)
  pairs, near = layers.order_pairs(40, 200, rng)
  for p in (pairs, near):
    assert p.min() >= 1 and p.max() <= 38 and np.all(p[:, 0] != p[:, 1])
    after = np.mean(p[:, 1] > p[:, 0])
    assert 0.35 < after < 0.65, after
  assert np.all(np.abs(near[:, 1] - near[:, 0]) == 1) and len(near) == 37
  assert len(pairs) == 200 and len({tuple(sorted(p)) for p in pairs}) == 200


def test_position_probe_reads_a_linear_code_and_not_noise():
  rng = np.random.RandomState(0)
  pos = np.tile(np.arange(1, 31), 20)
  code = np.outer(pos, rng.normal(size=8)) + 0.01 * rng.normal(size=(600, 8))
  r2, mae = layers.position_probe(code[:450], pos[:450], code[450:],
                                     pos[450:])
  assert r2 > 0.99 and mae < 0.5
  noise = rng.normal(size=(600, 8))
  r2, _ = layers.position_probe(noise[:450], pos[:450], noise[450:],
                                   pos[450:])
  assert r2 < 0.05


@pytest.mark.parametrize("flag", ["--sentences=3", "--max_seq_length=25",
                                  "--max_pairs=0"])
def test_layers_refuses_bad_flags_in_one_line(tiny, flag):
  config_file, prefix, _ = tiny
  with pytest.raises(SystemExit, match="error: " + flag.split("=")[0]):
    cli.main(["layers", "--bert_config_file=" + config_file,
                    "--init_checkpoint=" + prefix,
                    "--vocab_file=" + corpus.minilm_vocab(), flag])


def test_pooling_scores():
  vectors = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
  assert pooling.nearest_neighbour_accuracy(vectors, [0, 0, 1, 1]) == 1.0
  assert pooling.pair_auc(vectors, [0, 0, 1, 1]) == 1.0
  assert pooling.pair_auc(vectors, [0, 1, 0, 1]) < 0.5


def test_long_text_windows_are_the_classifiers_and_pool_per_article(tiny):
  """The windows of `long_text` are run_classifier.py's
  --long_text=sliding_window windows (its Python path,
  `convert_example_to_windows`), the first one is the original's
  truncation, and an article's "mean of windows" vector is the mean of its
  windows' vectors, each run through the model alone."""
  from bert_research.analysis import attention
  from bert_tf2.classifier import long_text as classifier_long_text
  from bert_tf2.classifier.processors import InputExample
  _, _, model = tiny
  tok = common.full_tokenizer(corpus.minilm_vocab())
  data = long_text.bbc_labelled(4)
  assert len({topic for _, topic, _ in data}) > 1  # spread over topics
  max_len, stride = 24, 8
  ids = [tok.convert_tokens_to_ids(tok.tokenize(t)) for _, _, t in data]
  cls_id, sep_id = tok.convert_tokens_to_ids(["[CLS]", "[SEP]"])
  features, example = long_text.article_windows(ids, max_len, stride,
                                                cls_id, sep_id)
  expected = [f for i, (_, topic, text) in enumerate(data)
              for f in classifier_long_text.convert_example_to_windows(
                  i, InputExample(str(i), text, None, topic), [topic],
                  max_len, stride, tok)]
  assert example.tolist() == [f.example_index for f in expected]
  assert np.bincount(example).min() > 5  # long articles: many windows
  for key in ("input_ids", "input_mask", "segment_ids"):
    assert features[key].tolist() == [getattr(f, key) for f in expected]
  first = np.searchsorted(example, np.arange(len(data)))
  for i, (_, _, text) in enumerate(data):
    _, truncated, _ = attention.encode_text(tok, text, max_seq_length=max_len)
    assert features["input_ids"][first[i]].tolist() == truncated.tolist()
  mean, cls = long_text.window_vectors(model, features, batch_size=7)
  first_vec, mean_vec = long_text.article_vectors(mean, example, len(data))
  for i in range(len(data)):
    alone = [long_text.window_vectors(
        model, {k: v[w:w + 1] for k, v in features.items()})[0][0]
             for w in np.flatnonzero(example == i)]
    np.testing.assert_allclose(mean_vec[i], np.mean(alone, axis=0),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(first_vec[i], alone[0], rtol=1e-4, atol=1e-5)
  assert not np.allclose(first_vec, mean_vec, atol=1e-3)
  seq = np.asarray(model({"input_ids": features["input_ids"][:1],
                          "input_mask": features["input_mask"][:1]})
                   ["sequence_output"])
  np.testing.assert_allclose(cls[0], seq[0, 0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("flag", ["--max_articles=-1", "--doc_stride=0",
                                  "--max_seq_length=2"])
def test_long_text_refuses_bad_flags_in_one_line(flag):
  with pytest.raises(SystemExit, match="^error: " + flag.split("=")[0]):
    cli.main(["long_text", "--bert_config_file=c",
                    "--init_checkpoint=c", "--vocab_file=v", flag])


def test_window_buckets_and_article_vectors_refuse_a_missing_article():
  assert [long_text.window_bucket(c) for c in (1, 2, 6, 7)] == [
      "1", "2-3", "4-6", "7+"]
  with pytest.raises(ValueError):
    long_text.article_vectors(np.ones([2, 3]), [0, 2], 3)


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_command_runs_on_a_tiny_checkpoint(tiny, command, capsys,
                                                 tmp_path):
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
      "long_text": ["--bert_config_file=" + config_file,
                    "--init_checkpoint=" + prefix, "--vocab_file=" + vocab,
                    "--max_articles=30", "--max_seq_length=24",
                    "--doc_stride=12"],
      "self_attention": ["--bert_config_file=" + config_file,
                         "--init_checkpoint=" + prefix,
                         "--vocab_file=" + vocab, "--sentences=3",
                         "--max_seq_length=24"],
      "nonlinearity": ["--bert_config_file=" + config_file,
                       "--init_checkpoint=" + prefix, "--vocab_file=" + vocab,
                       "--max_articles=30", "--max_seq_length=24"],
      "layers": ["--bert_config_file=" + config_file,
                 "--init_checkpoint=" + prefix, "--vocab_file=" + vocab,
                 "--sentences=8", "--max_seq_length=24", "--max_pairs=5",
                 "--output_plot=" + str(tmp_path / "layers.png")],
      "masking": MASKING_TOY[1:] + ["--rates=0.15", "--seeds=1"],
  }[command]
  cli.main([command] + args)
  out = capsys.readouterr().out
  assert out.count("\n|") >= 2, out
  if command == "layers":
    from bert_research.analysis import plots  # pylint: disable=g-import-not-at-top
    assert plots.is_png(str(tmp_path / "layers.png"))


def test_layers_plot_refuses_a_missing_folder_before_running(tiny):
  config_file, prefix, _ = tiny
  with pytest.raises(SystemExit, match="--output_plot=/nonexistent/l.png"):
    cli.main(["layers", "--bert_config_file=" + config_file,
                    "--init_checkpoint=" + prefix, "--vocab_file=unused",
                    "--output_plot=/nonexistent/l.png"])


MASKING_TOY = ["--rates=0.15,0.4", "--seeds=1", "--steps=2", "--batch=4",
               "--seq_length=8", "--hidden_size=16", "--layers=1",
               "--heads=2", "--probe_examples=40"]


def test_topic_sequences_differ_in_bigrams_only():
  ids, topic = masking.topic_sequences(masking.MASKING_SHIFTS, 4000, 32,
                                         33, 0.5, np.random.RandomState(0))
  assert ids.min() >= 1 and ids.max() <= 32
  step = np.diff(ids - 1, axis=1) % 32
  for t, shift in enumerate(masking.MASKING_SHIFTS):
    mine = topic == t
    # Half the steps follow the topic's shift (plus the 1 in 32 uniform
    # draws that land on it) ...
    share = np.mean(step[mine] == shift)
    assert abs(share - (0.5 + 0.5 / 32)) < 0.01, (t, share)
    # ... while each topic's tokens are uniform: no token is more than
    # 20% above or below 1/32 of a topic's tokens.
    freq = np.bincount(ids[mine].ravel(), minlength=33)[1:] / ids[mine].size
    assert np.abs(freq * 32 - 1).max() < 0.2, (t, freq)


def test_mask_tokens_masks_as_bert_at_the_rate():
  ids = np.random.RandomState(1).randint(1, 33, size=(2000, 20))
  inputs, weights = masking.mask_tokens(ids, 0.25, 33, 33,
                                          np.random.RandomState(2))
  assert (weights.sum(axis=1) == 5).all()
  assert (inputs[weights == 0] == ids[weights == 0]).all()
  picked_in, picked = inputs[weights == 1], ids[weights == 1]
  masked = np.mean(picked_in == 33)
  kept = np.mean(picked_in == picked)
  assert abs(masked - 0.8) < 0.02 and abs(kept - (0.1 + 0.1 / 32)) < 0.015
  assert masking.mask_tokens(ids[:1, :4], 0.01, 33, 33,
                               np.random.RandomState(0))[1].sum() == 1


def test_masking_runs_share_init_and_data_across_rates(monkeypatch):
  # The probe replaced by a fingerprint of the model on the probe data:
  # before training it is the same for every rate (same seed: same init,
  # same sequences); after, the rates' models differ.
  def fingerprint(net, data):
    # A fixed random projection of the outputs (their squared norm would
    # not do: LayerNorm at init makes it the same for every model).
    out = net.sequence_output(data[0], np.ones_like(data[0])).ravel()
    return float(out @ np.random.RandomState(0).normal(size=out.size))

  from bert_research.analysis import toy_training  # pylint: disable=g-import-not-at-top
  seen = []
  step = toy_training.ToyNet.train_step

  def recording_step(net, batch):
    seen.append(batch)
    return step(net, batch)

  monkeypatch.setattr(masking, "masking_probe", fingerprint)
  monkeypatch.setattr(toy_training.ToyNet, "train_step", recording_step)
  args = cli.build_parser().parse_args(["masking"] + MASKING_TOY)
  low = masking.masking_run(0.15, 0, args)
  high = masking.masking_run(0.4, 0, args)
  assert low[0] == high[0]
  assert low[1] != high[1] and low[1] != low[0]
  # The same sequences at every step for both rates; only the masks differ
  # (round(0.15 x 8) = 1 and round(0.4 x 8) = 3 predictions a sequence).
  assert len(seen) == 4
  for a, b in zip(seen[:2], seen[2:]):
    np.testing.assert_array_equal(a["targets"], b["targets"])
    assert a["weights"].sum() == 4 and b["weights"].sum() == 12


@pytest.mark.parametrize("flag", ["--rates=0.2,1.5", "--seeds=0", "--steps=-1",
                                  "--stay=1.5"])
def test_masking_refuses_bad_flags_in_one_line(flag):
  with pytest.raises(SystemExit, match=flag.split(",")[0].split("=")[0]):
    cli.main(["masking", flag])


def test_graph_forward_is_the_model_in_one_trace(tiny):
  # The commands' model calls run in one graph function: the same outputs
  # as the eager model (to float round-off), and one trace for every batch
  # size and length (sentences differ in length).
  _, _, model = tiny
  forward = common.graph_forward(model, return_attention_probs=True)
  rng = np.random.RandomState(0)
  for batch, length in ((1, 5), (1, 9), (3, 7), (2, 12)):
    inputs = {"input_ids": rng.randint(0, 50, size=[batch, length]),
              "token_type_ids": rng.randint(0, 2, size=[batch, length])}
    got = forward(inputs)
    want = model({k: np.asarray(v, np.int32) for k, v in inputs.items()},
                 return_attention_probs=True)
    for key in ("sequence_output", "embedding_output"):
      np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-5)
    for g, w in zip(got["attention_probs"], want["attention_probs"]):
      np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
  assert forward.tf_function.experimental_get_tracing_count() == 1


def test_a_patch_reaches_a_graph_forward_traced_inside_it(tiny):
  # nonlinearity runs each patched pass through a graph_forward made and
  # traced inside the patch's context: the trace holds the patched op.
  _, _, model = tiny
  inputs = {"input_ids": np.array([[2, 7, 9, 11, 3]], np.int32)}
  with nonlinearity.nonlinearity_patch("softmax -> uniform"):
    patched = common.graph_forward(model, return_attention_probs=True)
    probs = np.asarray(patched(inputs)["attention_probs"][0])
  np.testing.assert_allclose(probs, np.full(probs.shape, 0.2), atol=1e-6)
  trained = common.graph_forward(model, return_attention_probs=True)
  probs = np.asarray(trained(inputs)["attention_probs"][0])
  assert np.abs(probs - 0.2).max() > 0.01


def test_masking_table_has_the_docs_columns_and_both_noise_tests():
  # The per-seed accuracies docs/questions.md publishes: the table gives
  # the predictions a sequence, and the two tests the page quotes (every
  # rate: 0.245 against 0.092; 15/25/40%: 0.029 against 0.050, 0.051 from
  # the 3-digit accuracies printed there).
  per_seed = [[0.670, 0.768, 0.664, 0.486], [0.890, 0.850, 0.906, 0.870],
              [0.850, 0.882, 0.948, 0.888], [0.918, 0.816, 0.862, 0.856]]
  acc = [[(0.319, a) for a in seeds] for seeds in per_seed]
  text = masking.masking_table([0.1, 0.15, 0.25, 0.4], acc, 32)
  lines = text.splitlines()
  assert lines[0].startswith("| masking rate | predictions per sequence |")
  assert [l.split(" | ")[1] for l in lines[2:6]] == ["3", "5", "8", "13"]
  assert ("every rate: largest gap between rates 0.245, noise (95% of a "
          "difference of two means) 0.092: the rates differ beyond the "
          "noise") in lines
  assert ("without the lowest (15%, 25%, 40%): largest gap between rates "
          "0.029, noise (95% of a difference of two means) 0.051: the rates "
          "do not differ beyond the noise") in lines
