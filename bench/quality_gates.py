"""The quality bounds a lower precision must keep, as checks that fail.

A precision other than float32 is offered for a task only where its
answers stay within these bounds of float32's on real weights (the
bounds docs/performance.md promises); `bench.precision_quality` measures
every offered precision on every path and exits 1 when one misses a gate
that is not a declared loss. A declared loss (`DECLARED_LOSSES`) is a
precision still offered, with its measured loss written beside it in
docs/performance.md ("Precision and quality"), and never compared for
speed as if it passed.

A measurement is a dict of the numbers its gates read; `judge` gives
one `Verdict` per gate:

  >>> v = judge("sentence vectors", "bfloat16", {"cosine_min": 0.9998})
  >>> [(x.gate, x.passed) for x in v]
  [('cosine min >= 0.999', True)]
  >>> judge("sentence vectors", "int8", {"cosine_min": 0.969})[0].passed
  False
  >>> failures([*v, *judge("sentence vectors", "int8",
  ...                      {"cosine_min": 0.969})])
  []
"""

import collections

Gate = collections.namedtuple("Gate", "name measure check")
Verdict = collections.namedtuple(
    "Verdict", "task precision path gate measured passed declared_loss")

# task -> its gates: (name, the measurement's key, test of its value).
# Accuracies and F1 are fractions (0.8578), SQuAD's F1 in points (39.73),
# as bert_tf2.squad.evaluate gives them.
GATES = {
    "classifier": (
        Gate("accuracy within 0.3 point of float32", "accuracy_delta",
             lambda d: abs(d) <= 0.003),
        Gate("same label as float32 >= 99.5%", "same_label",
             lambda s: s >= 0.995),
    ),
    "ner": (
        Gate("entity F1 within 0.3 point of float32", "f1_delta",
             lambda d: abs(d) <= 0.003),
    ),
    "squad": (
        Gate("F1 within 0.5 of float32", "f1_delta_points",
             lambda d: abs(d) <= 0.5),
    ),
    "multiple choice": (
        Gate("accuracy within 0.5 point of float32", "accuracy_delta",
             lambda d: abs(d) <= 0.005),
    ),
    "sentence vectors": (
        Gate("cosine min >= 0.999", "cosine_min", lambda c: c >= 0.999),
    ),
}

# (task, precision) pairs offered although they miss a gate; the docs give
# each one's measured loss (docs/performance.md, "Precision and quality"):
# int8 through ONNX Runtime changes 1.5% of the classifier's labels, its
# sentence vectors reach cosine min 0.969, SQuAD F1 -0.57.
DECLARED_LOSSES = frozenset({
    ("classifier", "int8"),
    ("sentence vectors", "int8"),
    ("squad", "int8"),
})


def judge(task, precision, measured, path=""):
  """One `Verdict` per gate of `task` on `measured` (dict of numbers) of
  `precision` through `path` (the predictor, the Keras text model, ...).

  Raises:
    KeyError: the task has no gates, or `measured` lacks a gate's number
      (a gate is never skipped).
  """
  verdicts = []
  for gate in GATES[task]:
    value = measured[gate.measure]
    verdicts.append(Verdict(task, precision, path, gate.name, value,
                            bool(gate.check(value)),
                            (task, precision) in DECLARED_LOSSES))
  return verdicts


def failures(verdicts):
  """The verdicts that fail and are not declared losses."""
  return [v for v in verdicts if not v.passed and not v.declared_loss]


def table(verdicts):
  """Markdown lines: task, precision, gate, measured, verdict."""
  lines = ["| task | precision | path | gate | measured | verdict |",
           "|---|---|---|---|---|---|"]
  for v in verdicts:
    word = "pass" if v.passed else (
        "fails: declared loss, written in the docs" if v.declared_loss
        else "FAILS")
    lines.append("| %s | %s | %s | %s | %.5g | %s |" % (
        v.task, v.precision, v.path, v.gate, v.measured, word))
  return lines
