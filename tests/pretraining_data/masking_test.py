"""Masking: whole-word-mask properties and draw compatibility."""

import random

import pytest

import tokenization
from bert_tf2.pretraining_data import documents
from bert_tf2.pretraining_data import masking
from bert_tf2.pretraining_data import options as options_lib
from bert_tf2.pretraining_data import pipeline
from tests.pretraining_data import checks
from tests.pretraining_data import corpus
from tests.pretraining_data import records


@pytest.fixture(scope="module")
def tokenizer():
  return tokenization.FullTokenizer(corpus.minilm_vocab(), do_lower_case=True)


def _vocab(tokenizer):
  return masking.MaskingVocab.from_vocab(tokenizer.vocab)


def _word_groups(ids, len_a, inv_vocab):
  """Independent statement of master's grouping: '##' joins the previous."""
  groups = []
  for i in range(len(ids)):
    if i in (0, len_a + 1, len(ids) - 1):
      continue
    if groups and inv_vocab[ids[i]].startswith("##"):
      groups[-1].append(i)
    else:
      groups.append([i])
  return groups


def _assert_whole_words(ids, len_a, output, positions, labels, tokenizer,
                        num_to_predict):
  assert positions == sorted(set(positions))
  assert len(positions) <= num_to_predict
  assert labels == [ids[p] for p in positions]
  masked = set(positions)
  for group in _word_groups(ids, len_a, tokenizer.inv_vocab):
    hit = masked & set(group)
    assert not hit or hit == set(group), (group, positions)
  for i, (before, after) in enumerate(zip(ids, output)):
    if i not in masked:
      assert before == after


def test_whole_word_groups_are_masked_whole(tokenizer):
  vocab = _vocab(tokenizer)
  text = corpus.bbc_documents(20000)
  sentences = [tokenizer.tokenize_to_ids(s) for doc in text for s in doc]
  rng = random.Random(0)
  saw_multi_piece = False
  for i in range(0, len(sentences) - 1, 2):
    a, b = sentences[i][:60], sentences[i + 1][:60]
    ids = [101] + a + [102] + b + [102]
    for prob, max_preds in [(0.15, 20), (0.5, 7), (1.0, 200)]:
      output, positions, labels = masking.create_masked_lm_predictions(
          ids, len(a), prob, max_preds, vocab, rng, do_whole_word_mask=True)
      num = masking.num_predictions(len(ids), prob, max_preds)
      _assert_whole_words(ids, len(a), output, positions, labels, tokenizer,
                          num)
      saw_multi_piece |= any(
          tokenizer.inv_vocab[ids[p]].startswith("##") for p in positions)
  assert saw_multi_piece


def test_whole_word_mask_without_subwords_draws_like_original(tokenizer):
  # With no "##" pieces every group is one token: master's whole-word code
  # then makes exactly the draws of the original per-token code.
  vocab = _vocab(tokenizer)
  words = [i for t, i in tokenizer.vocab.items()
           if t.isalpha() and t.islower()][:3000]
  for seed in range(50):
    pick = random.Random(seed)
    len_a, len_b = pick.randint(1, 70), pick.randint(1, 60)
    ids = ([101] + pick.sample(words, len_a) + [102] +
           pick.sample(words, len_b) + [102])
    r1, r2 = random.Random(seed), random.Random(seed)
    plain = masking.create_masked_lm_predictions(ids, len_a, 0.15, 20, vocab,
                                                 r1)
    whole = masking.create_masked_lm_predictions(ids, len_a, 0.15, 20, vocab,
                                                 r2, do_whole_word_mask=True)
    assert plain == whole
    assert r1.random() == r2.random()


def test_masking_replacements_follow_80_10_10(tokenizer):
  vocab = _vocab(tokenizer)
  rng = random.Random(1)
  counts = {"mask": 0, "same": 0, "other": 0}
  words = list(range(2000, 2200))
  for _ in range(300):
    ids = [101] + words[:60] + [102] + words[60:120] + [102]
    output, positions, _ = masking.create_masked_lm_predictions(
        ids, 60, 0.15, 20, vocab, rng)
    for p in positions:
      if output[p] == vocab.mask_id:
        counts["mask"] += 1
      elif output[p] == ids[p]:
        counts["same"] += 1
      else:
        counts["other"] += 1
  total = sum(counts.values())
  assert total == 300 * masking.num_predictions(123, 0.15, 20)
  assert 0.77 < counts["mask"] / total < 0.83
  assert 0.08 < counts["same"] / total < 0.12
  assert 0.08 < counts["other"] / total < 0.12


def test_whole_word_mask_end_to_end(tokenizer, tmp_path):
  path = corpus.write_corpus(str(tmp_path / "bbc.txt"),
                             corpus.bbc_documents(40000, start=300))
  out = str(tmp_path / "wwm.tfrecord")
  opts = options_lib.DataOptions(do_whole_word_mask=True, dupe_factor=2,
                                 max_seq_length=96, max_predictions_per_seq=14,
                                 log_examples=0)
  stats = pipeline.run([path], [out], tokenizer, opts)
  examples = records.read_examples(out)
  assert len(examples) == stats.instances > 50
  masked_total = 0
  for ex in examples:
    n, k = checks.check_instance(ex, 96, 14, len(tokenizer.vocab), 101, 102)
    output = ex["input_ids"][1][:n]
    positions = ex["masked_lm_positions"][1][:k]
    labels = ex["masked_lm_ids"][1][:k]
    ids = list(output)
    for p, label in zip(positions, labels):
      ids[p] = label
    len_a = ex["segment_ids"][1].index(1) - 2
    _assert_whole_words(ids, len_a, output, positions, labels, tokenizer,
                        masking.num_predictions(n, 0.15, 14))
    masked_total += k
  assert masked_total == stats.masked_tokens
  assert stats.documents == len(documents.read_documents(
      [path], tokenizer.tokenize_to_ids, documents.CorpusStats()))
