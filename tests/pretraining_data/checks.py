"""Structural checks every written instance must pass (test helper)."""


def check_instance(example, max_seq_length, max_predictions_per_seq,
                   vocab_size, cls_id, sep_id):
  """Asserts the invariants of one parsed Example (see records.py)."""
  kinds = {name: kind for name, (kind, _) in example.items()}
  assert kinds == {
      "input_ids": "int64_list", "input_mask": "int64_list",
      "segment_ids": "int64_list", "masked_lm_positions": "int64_list",
      "masked_lm_ids": "int64_list", "masked_lm_weights": "float_list",
      "next_sentence_labels": "int64_list"}
  values = {name: v for name, (_, v) in example.items()}
  ids, mask, segments = (values["input_ids"], values["input_mask"],
                         values["segment_ids"])
  assert len(ids) == len(mask) == len(segments) == max_seq_length
  n = sum(mask)
  assert mask == [1] * n + [0] * (max_seq_length - n)
  assert ids[n:] == [0] * (max_seq_length - n)
  assert ids[0] == cls_id and ids[n - 1] == sep_id
  len_a = segments.index(1) - 2 if 1 in segments else None
  assert len_a is not None and len_a >= 1
  assert ids[len_a + 1] == sep_id
  assert segments == ([0] * (len_a + 2) + [1] * (n - len_a - 2) +
                      [0] * (max_seq_length - n))
  assert n - len_a - 3 >= 1  # Segment B is not empty.
  assert all(0 <= i < vocab_size for i in ids)
  positions, labels, weights = (values["masked_lm_positions"],
                                values["masked_lm_ids"],
                                values["masked_lm_weights"])
  assert len(positions) == len(labels) == len(weights) == (
      max_predictions_per_seq)
  k = int(sum(weights))
  assert 1 <= k <= max_predictions_per_seq
  assert weights == [1.0] * k + [0.0] * (max_predictions_per_seq - k)
  assert positions[k:] == [0] * (max_predictions_per_seq - k)
  assert labels[k:] == [0] * (max_predictions_per_seq - k)
  assert positions[:k] == sorted(set(positions[:k]))
  special = {0, len_a + 1, n - 1}
  assert not special & set(positions[:k])
  assert all(0 < p < n for p in positions[:k])
  assert values["next_sentence_labels"] in ([0], [1])
  return n, k
