"""conlleval chunks and entity F1 against hand-computed cases."""

import pytest

from bert_tf2.ner import metrics
from bert_tf2.ner import schemes


@pytest.mark.parametrize("tags, expected", [
    # BIO: B starts; I continues; a new B of the same type splits.
    (["B-PER", "I-PER", "B-PER", "O"], [("PER", 0, 2), ("PER", 2, 3)]),
    # IOB1: I after O starts a chunk; B separates adjacent same-type chunks.
    (["I-LOC", "I-LOC", "B-LOC", "O", "I-ORG"],
     [("LOC", 0, 2), ("LOC", 2, 3), ("ORG", 4, 5)]),
    # Type change inside I-run splits (conlleval's type rule).
    (["B-PER", "I-LOC", "I-LOC"], [("PER", 0, 1), ("LOC", 1, 3)]),
    # BIOES: E ends, S is a single chunk, I after E starts a new chunk.
    (["B-ORG", "I-ORG", "E-ORG", "S-PER", "E-LOC", "I-LOC"],
     [("ORG", 0, 3), ("PER", 3, 4), ("LOC", 4, 5), ("LOC", 5, 6)]),
    (["O", "O"], []),
    ([], []),
])
def test_chunks(tags, expected):
  assert schemes.chunks(tags) == expected


def test_orphan_starts_and_scheme_detection():
  assert schemes.count_orphan_starts(["O", "I-PER", "I-PER", "O"]) == 1
  assert schemes.count_orphan_starts(["B-PER", "I-PER", "I-LOC"]) == 1
  assert schemes.count_orphan_starts(["B-PER", "I-PER"]) == 0
  assert schemes.detect_scheme([["B-PER", "I-PER"], ["O"]]) == "BIO"
  assert schemes.detect_scheme([["I-PER", "B-PER"]]) == "IOB1"
  assert schemes.detect_scheme([["B-PER", "E-PER"]]) == "BIOES"
  assert not schemes.is_valid_tag("U-PER")
  assert not schemes.is_valid_tag("PER")
  assert schemes.is_valid_tag("B-MISC-X")


def test_entity_f1_hand_computed():
  gold = [["B-PER", "I-PER", "O", "B-LOC", "O"],
          ["B-ORG", "I-ORG", "I-ORG", "O"],
          ["O", "O"]]  # A sentence of only O counts tokens, no chunks.
  pred = [["B-PER", "I-PER", "O", "B-ORG", "O"],  # PER right, LOC->ORG.
          ["B-ORG", "I-ORG", "O", "O"],           # ORG too short: wrong.
          ["O", "I-PER"]]                         # Orphan I-: a PER chunk.
  m = metrics.evaluate(gold, pred)
  # gold chunks: PER, LOC, ORG = 3; predicted: PER, ORG, ORG, PER = 4;
  # correct: the first PER only.
  assert m["overall"]["gold"] == 3
  assert m["overall"]["predicted"] == 4
  assert m["overall"]["correct"] == 1
  assert m["overall"]["precision"] == pytest.approx(1 / 4)
  assert m["overall"]["recall"] == pytest.approx(1 / 3)
  assert m["overall"]["f1"] == pytest.approx(2 * (1 / 4) * (1 / 3) /
                                             (1 / 4 + 1 / 3))
  assert m["PER"]["precision"] == pytest.approx(1 / 2)
  assert m["PER"]["recall"] == 1.0
  assert m["LOC"]["recall"] == 0.0 and m["LOC"]["predicted"] == 0
  assert m["LOC"]["f1"] == 0.0
  assert m["ORG"]["correct"] == 0 and m["ORG"]["predicted"] == 2
  assert m["predicted_orphan_starts"] == 1
  assert m["gold_orphan_starts"] == 0
  # Token accuracy: 11 tokens, 3 differ (LOC->ORG, I-ORG->O, O->I-PER).
  assert m["token_accuracy"] == pytest.approx(8 / 11)
  flat = metrics.flatten(m)
  assert flat["eval_f1"] == m["overall"]["f1"]
  assert flat["eval_PER_recall"] == 1.0
  assert flat["eval_predicted_orphan_starts"] == 1


def test_iob1_and_bio_spellings_of_the_same_entities_score_perfect():
  bio = [["B-PER", "I-PER", "B-PER", "O", "B-LOC"]]
  iob1 = [["I-PER", "I-PER", "B-PER", "O", "I-LOC"]]
  bioes = [["B-PER", "E-PER", "S-PER", "O", "S-LOC"]]
  for pred in (iob1, bioes):
    assert metrics.evaluate(bio, pred)["overall"]["f1"] == 1.0


def test_length_mismatch_is_an_error():
  with pytest.raises(ValueError):
    metrics.evaluate([["O", "O"]], [["O"]])
