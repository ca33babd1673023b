"""Entity-level precision / recall / F1 with conlleval's semantics.

A predicted chunk is correct when a gold chunk has the same type, start and
end (chunks from schemes.chunks, per sentence). Per type and overall
(micro-averaged over all chunks):
  precision = correct / predicted, recall = correct / gold,
  F1 = 2PR / (P + R)   (0 when a denominator is 0, as conlleval prints).
Token accuracy counts tags equal in gold and prediction, as conlleval.

Example:
  >>> m = evaluate([["B-PER", "I-PER", "O", "B-LOC"]],
  ...              [["B-PER", "I-PER", "O", "B-ORG"]])
  >>> m["overall"]["precision"], m["overall"]["recall"], m["PER"]["f1"]
  (0.5, 0.5, 1.0)
"""

import collections

from bert_tf2.ner import schemes


def _prf(correct, predicted, gold):
  p = correct / predicted if predicted else 0.0
  r = correct / gold if gold else 0.0
  f = 2 * p * r / (p + r) if p + r else 0.0
  return {"precision": p, "recall": r, "f1": f, "correct": correct,
          "predicted": predicted, "gold": gold}


def entity_types(labels):
  """The entity types of a label list, sorted.

  Example:
    >>> entity_types(["O", "B-PER", "I-PER", "S-LOC"])
    ['LOC', 'PER']
  """
  return sorted({schemes.split_tag(tag)[1] for tag in labels} - {""})


def evaluate(gold_sequences, predicted_sequences, types=()):
  """Per-type and overall metrics of aligned tag sequences.

  Args:
    gold_sequences, predicted_sequences: lists of tag lists.
    types: entity types always reported (zeros when neither side has
      one), e.g. `entity_types(label_list)`: so every evaluation of a run
      has the same names (--early_stopping_metric=eval_LOC_f1).

  Returns:
    dict: {"overall": {...}, TYPE: {...}, "token_accuracy": float,
    "tokens": int, "sentences": int, "gold_orphan_starts": int,
    "predicted_orphan_starts": int}, each {...} with precision, recall, f1,
    correct, predicted, gold.
  """
  correct = collections.Counter()
  predicted = collections.Counter()
  gold = collections.Counter()
  tokens = same = orphans_gold = orphans_pred = 0
  for g, p in zip(gold_sequences, predicted_sequences, strict=True):
    if len(g) != len(p):
      raise ValueError("sentence lengths differ: %d gold, %d predicted" %
                       (len(g), len(p)))
    gold_chunks = schemes.chunks(g)
    pred_chunks = schemes.chunks(p)
    gold.update(c[0] for c in gold_chunks)
    predicted.update(c[0] for c in pred_chunks)
    correct.update(c[0] for c in set(gold_chunks) & set(pred_chunks))
    tokens += len(g)
    same += sum(a == b for a, b in zip(g, p))
    orphans_gold += schemes.count_orphan_starts(g)
    orphans_pred += schemes.count_orphan_starts(p)
  result = {kind: _prf(correct[kind], predicted[kind], gold[kind])
            for kind in sorted(set(gold) | set(predicted) | set(types))}
  result["overall"] = _prf(sum(correct.values()), sum(predicted.values()),
                           sum(gold.values()))
  result["token_accuracy"] = same / tokens if tokens else 0.0
  result["tokens"] = tokens
  result["sentences"] = len(gold_sequences)
  result["gold_orphan_starts"] = orphans_gold
  result["predicted_orphan_starts"] = orphans_pred
  return result


def flatten(result, prefix="eval_"):
  """evaluate()'s dict -> {name: number} for eval_results.txt.

  Names: eval_precision, eval_recall, eval_f1 (overall, micro), then
  eval_<TYPE>_precision/_recall/_f1/_gold/_predicted/_correct, and
  eval_token_accuracy, eval_sentences, eval_tokens, eval_gold_orphan_starts
  (I- without B- in the gold tags, conlleval's treatment: a chunk start),
  eval_predicted_orphan_starts.
  """
  out = {}
  for kind, values in result.items():
    if not isinstance(values, dict):
      out[prefix + kind] = values
      continue
    name = prefix if kind == "overall" else "%s%s_" % (prefix, kind)
    for key, value in values.items():
      out[name + key] = value
  return out
