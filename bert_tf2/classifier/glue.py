"""The remaining GLUE tasks, in the file layouts of the GLUE download (the
table of docs/classifier.md). Test examples get the first label (0.0 for
STS-B), as the original's.

Example:
  >>> import os, tempfile
  >>> d = tempfile.mkdtemp()
  >>> _ = open(os.path.join(d, "dev.tsv"), "w").write(
  ...     "sentence\\tlabel\\nA fine film .\\t1\\n")
  >>> [(e.guid, e.text_a, e.label) for e in Sst2Processor().get_dev_examples(d)]
  [('dev-1', 'A fine film .', '1')]
"""

from bert_tf2.common import InputError
from bert_tf2.classifier.processors import SplitFilesProcessor


class Sst2Processor(SplitFilesProcessor):
  """SST-2: single sentences, binary sentiment."""
  columns = (0, None, 1)
  test_columns = (1, None)
  labels = ("0", "1")


class QnliProcessor(SplitFilesProcessor):
  """QNLI: does the sentence answer the question?"""
  columns = (1, 2, -1)
  test_columns = (1, 2)
  labels = ("entailment", "not_entailment")


class QqpProcessor(SplitFilesProcessor):
  """QQP: are the two questions duplicates?"""
  columns = (3, 4, 5)
  test_columns = (1, 2)
  labels = ("0", "1")


class RteProcessor(SplitFilesProcessor):
  """RTE: textual entailment, two classes."""
  columns = (1, 2, -1)
  test_columns = (1, 2)
  labels = ("entailment", "not_entailment")


class WnliProcessor(SplitFilesProcessor):
  """WNLI: Winograd NLI, binary."""
  columns = (1, 2, -1)
  test_columns = (1, 2)
  labels = ("0", "1")


class StsbProcessor(SplitFilesProcessor):
  """STS-B: similarity score in [0, 5], regression (get_labels(): [None])."""
  is_regression = True
  columns = (7, 8, -1)
  test_columns = (7, 8)
  labels = (None,)

  def _test_label(self):
    return 0.0

  def _create_examples(self, rows, set_type):
    examples = super(StsbProcessor, self)._create_examples(rows, set_type)
    if set_type != "test":
      for ex in examples:
        ex.label = parse_float_label(ex.label, ex.source)
    return examples


def parse_float_label(text, where):
  """Returns float(text), or InputError naming `where` ("file line N")."""
  try:
    value = float(text)
  except ValueError:
    raise InputError("%s: label %r is not a number" % (where, text)) from None
  if value != value or value in (float("inf"), float("-inf")):
    raise InputError("%s: label %r is not a finite number" % (where, text))
  return value
