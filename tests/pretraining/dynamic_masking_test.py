"""Tests of on-the-fly masking (--dynamic_masking)."""

import numpy as np
import tensorflow as tf

from bert_tf2.pretraining import dynamic_masking
from bert_tf2.pretraining import input_pipeline
from tests.pretraining import records

SEQ, PRED, VOCAB = 32, 6, 1000


def _batch(tmp_path, n=64, seed=0):
  path = tmp_path / "r.tfrecord"
  written = records.write_records(path, n, SEQ, PRED, seed=seed,
                                  vocab_size=VOCAB)
  input_fn = input_pipeline.input_fn_builder([str(path)], SEQ, PRED, False)
  batch = next(iter(input_fn({"batch_size": n})))
  return batch, written


def _originals(written):
  out = []
  for inst in written:
    ids = list(inst["input_ids"])
    for p, t, w in zip(inst["masked_lm_positions"], inst["masked_lm_ids"],
                       inst["masked_lm_weights"]):
      if w:
        ids[p] = t
    out.append(ids)
  return np.array(out)


def test_restore_original_ids_undoes_the_static_masks(tmp_path):
  batch, written = _batch(tmp_path)
  restored = dynamic_masking.restore_original_ids(
      batch["input_ids"], batch["masked_lm_positions"],
      batch["masked_lm_ids"], batch["masked_lm_weights"])
  np.testing.assert_array_equal(restored.numpy(), _originals(written))


def test_new_masks_follow_the_original_rule(tmp_path):
  batch, written = _batch(tmp_path, n=256)
  original = _originals(written)
  masker = dynamic_masking.DynamicMasker(VOCAB, PRED, masked_lm_prob=0.15,
                                         seed=3)
  out = {k: v.numpy() for k, v in masker(batch, tf.constant(0, tf.int64))
         .items()}
  mask_count = kept = 0
  total = 0
  for row in range(len(written)):
    num_tokens = int(batch["input_mask"][row].numpy().sum())
    want = min(PRED, max(1, int(round(num_tokens * 0.15))))
    weights = out["masked_lm_weights"][row]
    assert weights.sum() == want
    assert list(weights) == [1.0] * want + [0.0] * (PRED - want)
    positions = out["masked_lm_positions"][row][:want]
    assert list(positions) == sorted(set(positions))
    assert all(out["masked_lm_positions"][row][want:] == 0)
    for p in positions:
      assert 0 < p < num_tokens and original[row][p] not in (101, 102)
    np.testing.assert_array_equal(out["masked_lm_ids"][row][:want],
                                  original[row][positions])
    changed = np.flatnonzero(out["input_ids"][row] != original[row])
    assert set(changed) <= set(positions)
    for p in positions:
      total += 1
      mask_count += out["input_ids"][row][p] == 103
      kept += out["input_ids"][row][p] == original[row][p]
    for name in ("input_mask", "segment_ids", "next_sentence_labels"):
      np.testing.assert_array_equal(out[name][row], batch[name][row])
  # 80% [MASK], 10% kept, 10% random (a random id rarely equals the token).
  assert abs(mask_count / total - 0.8) < 0.07
  assert abs(kept / total - 0.1) < 0.05


def test_masks_are_reproducible_per_batch_and_change_between_batches(
    tmp_path):
  batch, _ = _batch(tmp_path, n=32)
  masker = dynamic_masking.DynamicMasker(VOCAB, PRED, seed=5)
  a = masker(batch, tf.constant(4, tf.int64))["masked_lm_positions"].numpy()
  b = masker(batch, tf.constant(4, tf.int64))["masked_lm_positions"].numpy()
  c = masker(batch, tf.constant(5, tf.int64))["masked_lm_positions"].numpy()
  np.testing.assert_array_equal(a, b)
  assert (a != c).any()


def test_pipeline_with_dynamic_masking_yields_fresh_masks_each_epoch(
    tmp_path):
  path = tmp_path / "r.tfrecord"
  records.write_records(path, 8, SEQ, PRED, vocab_size=VOCAB)
  masker = dynamic_masking.DynamicMasker(VOCAB, PRED)
  input_fn = input_pipeline.input_fn_builder([str(path)], SEQ, PRED, False,
                                             masker=masker)
  first, second = list(input_fn({"batch_size": 8}).take(2))
  # Same records (eval order repeats), different masks.
  np.testing.assert_array_equal(first["input_mask"], second["input_mask"])
  assert (first["masked_lm_positions"].numpy() !=
          second["masked_lm_positions"].numpy()).any()


def test_random_replacements_are_uniform_over_the_whole_vocabulary():
  """The 10% random branch draws ids from [0, vocab_size), as the original's
  rng.randint(0, len(vocab_words) - 1) (both ends inclusive)."""
  from scipy import stats  # pylint: disable=g-import-not-at-top
  vocab, rows, token, cls_id, sep_id, mask_id = 40, 2000, 7, 1, 2, 3
  ids = np.full([rows, SEQ], token, np.int32)
  ids[:, 0], ids[:, -1] = cls_id, sep_id
  batch = {"input_ids": tf.constant(ids),
           "input_mask": tf.ones([rows, SEQ], tf.int32),
           "masked_lm_positions": tf.zeros([rows, PRED], tf.int32),
           "masked_lm_ids": tf.zeros([rows, PRED], tf.int32),
           "masked_lm_weights": tf.zeros([rows, PRED], tf.float32)}
  masker = dynamic_masking.DynamicMasker(vocab, PRED, cls_id=cls_id,
                                         sep_id=sep_id, mask_id=mask_id,
                                         seed=11)
  replaced = []
  for batch_index in range(3):
    out = masker(batch, tf.constant(batch_index, tf.int64))
    weights = out["masked_lm_weights"].numpy() > 0
    positions = out["masked_lm_positions"].numpy()
    new_ids = np.take_along_axis(out["input_ids"].numpy(), positions, 1)
    assert (out["masked_lm_ids"].numpy()[weights] == token).all()
    replaced.append(new_ids[weights])
  replaced = np.concatenate(replaced)
  counts = np.bincount(replaced, minlength=vocab)
  assert len(counts) == vocab
  total = len(replaced)  # 3 batches x 2000 rows x round(32 * 0.15) = 5
  assert total == 3 * rows * 5
  # [MASK] 80% (+ random draws of [MASK]), kept 10% (+ draws of the token).
  assert abs(counts[mask_id] / total - (0.8 + 0.1 / vocab)) < 0.01
  assert abs(counts[token] / total - (0.1 + 0.1 / vocab)) < 0.01
  # Every other id, including 0 and vocab_size - 1, equally often: 10% of
  # the predictions / vocab_size each (~75 here).
  others = np.delete(counts, [mask_id, token])
  assert others.min() > 0, np.flatnonzero(counts == 0)
  assert abs(others.sum() / total - 0.1 * (vocab - 2) / vocab) < 0.006
  _, p_value = stats.chisquare(others)
  assert p_value > 1e-4, (p_value, counts.tolist())


def test_rows_without_candidates_get_no_predictions():
  """[CLS] [SEP] alone (or padding) has nothing to mask, whatever the other
  rows of the batch have."""
  ids = np.array([[1, 2, 0, 0, 0, 0], [1, 9, 8, 7, 6, 2]], np.int32)
  mask = (ids > 0).astype(np.int32)
  batch = {"input_ids": tf.constant(ids), "input_mask": tf.constant(mask),
           "masked_lm_positions": tf.zeros([2, 3], tf.int32),
           "masked_lm_ids": tf.zeros([2, 3], tf.int32),
           "masked_lm_weights": tf.zeros([2, 3], tf.float32)}
  masker = dynamic_masking.DynamicMasker(10, 3, masked_lm_prob=0.5, cls_id=1,
                                         sep_id=2, mask_id=3)
  out = masker(batch, tf.constant(0, tf.int64))
  np.testing.assert_array_equal(out["masked_lm_weights"].numpy(),
                                [[0, 0, 0], [1, 1, 1]])
  np.testing.assert_array_equal(out["input_ids"].numpy()[0], ids[0])
