"""The remaining GLUE tasks, in the file layouts of the GLUE download.

  task    train.tsv / dev.tsv columns            test.tsv columns      labels
  sst-2   sentence, label (header)               index, sentence       0, 1
  qnli    index, question, sentence, label       index, question, sentence
                                                     entailment, not_entailment
  qqp     id, qid1, qid2, question1, question2, is_duplicate
                                                 id, question1, question2  0, 1
  rte     index, sentence1, sentence2, label     index, sentence1, sentence2
                                                     entailment, not_entailment
  wnli    index, sentence1, sentence2, label     (same)                0, 1
  sts-b   10 columns: sentence1, sentence2 at 7, 8; score last (0-5 float,
          regression); test has 9 columns.

Every file has a header line. Test examples get the first label (or 0.0 for
STS-B) so they can be converted like the others, as the original does.

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
