"""Input examples, the processor base class and the original's four tasks.

A processor turns a task's data files into `InputExample`s and names the
task's labels. The four here read exactly the files and columns that
Google's original `run_classifier.py` reads (table: docs/classifier.md).
Every malformed row raises `common.InputError` naming the file and line.

Example:
  >>> import os, tempfile
  >>> d = tempfile.mkdtemp()
  >>> _ = open(os.path.join(d, "dev.tsv"), "w").write(
  ...     "src\\t1\\t\\tThe dog barked.\\n")
  >>> ex = ColaProcessor().get_dev_examples(d)[0]
  >>> ex.guid, ex.text_a, ex.label
  ('dev-0', 'The dog barked.', '1')
"""

import os

from bert_tf2.classifier import reader


class InputExample(object):
  """One example: guid, text_a, optional text_b (pair tasks), optional
  label (str; float for regression), source ("file line N", for errors)."""

  def __init__(self, guid, text_a, text_b=None, label=None, source=None):
    self.guid = guid
    self.text_a = text_a
    self.text_b = text_b
    self.label = label
    self.source = source

  def __repr__(self):
    return "InputExample(guid=%r, text_a=%r, text_b=%r, label=%r)" % (
        self.guid, self.text_a, self.text_b, self.label)


class DataProcessor(object):
  """Reads one task's train/dev/test files (in a data directory) into
  `InputExample`s; `is_regression`: the label is a real number."""

  is_regression = False

  def get_train_examples(self, data_dir):
    raise NotImplementedError()

  def get_dev_examples(self, data_dir):
    raise NotImplementedError()

  def get_test_examples(self, data_dir):
    raise NotImplementedError()

  def get_labels(self):
    raise NotImplementedError()

  @classmethod
  def _read_tsv(cls, input_file, quotechar=None):
    """Returns the rows of a TSV file as lists of str (the original's API)."""
    return [row.fields for row in reader.read_rows(input_file, "\t", quotechar)]

  @staticmethod
  def _rows(data_dir, filename, delimiter="\t", quotechar=None):
    return reader.read_rows(os.path.join(data_dir, filename), delimiter,
                            quotechar)


def _example(guid, row, a, b=None, label_col=None, label=None):
  """Builds an InputExample from `row` columns (a, b, label_col are indexes)."""
  text_a = row.get(a, "text_a")
  text_b = row.get(b, "text_b") if b is not None else None
  if label_col is not None:
    label = row.get(label_col, "the label")
  return InputExample(guid=guid, text_a=text_a, text_b=text_b, label=label,
                      source=row.where())


class XnliProcessor(DataProcessor):
  """XNLI: trains on the machine-translated MultiNLI, evaluates on XNLI dev
  (one language, "zh" as in the original)."""

  def __init__(self, language="zh"):
    self.language = language

  def get_train_examples(self, data_dir):
    rows = self._rows(data_dir, os.path.join(
        "multinli", "multinli.train.%s.tsv" % self.language))
    examples = []
    for i, row in enumerate(rows):
      if i == 0:
        continue
      ex = _example("train-%d" % i, row, 0, 1, 2)
      if ex.label == "contradictory":
        ex.label = "contradiction"
      examples.append(ex)
    return examples

  def get_dev_examples(self, data_dir):
    examples = []
    for i, row in enumerate(self._rows(data_dir, "xnli.dev.tsv")):
      if i == 0 or row.get(0, "the language") != self.language:
        continue
      examples.append(_example("dev-%d" % i, row, 6, 7, 1))
    return examples

  def get_labels(self):
    return ["contradiction", "entailment", "neutral"]


class SplitFilesProcessor(DataProcessor):
  """A task whose split files have a header line: `columns` = (text_a,
  text_b or None, label) of train/dev, `test_columns` = (text_a, text_b or
  None); test examples get the first label, as the original's."""

  train_file = "train.tsv"
  dev_file = "dev.tsv"
  dev_name = "dev"
  test_file = "test.tsv"
  columns = None
  test_columns = None
  labels = None
  id_column = None  # The guids' numbers: this column, else the line's.

  def get_train_examples(self, data_dir):
    return self._create_examples(self._rows(data_dir, self.train_file),
                                 "train")

  def get_dev_examples(self, data_dir):
    return self._create_examples(self._rows(data_dir, self.dev_file),
                                 self.dev_name)

  def get_test_examples(self, data_dir):
    return self._create_examples(self._rows(data_dir, self.test_file), "test")

  def get_labels(self):
    return list(self.labels)

  def _test_label(self):
    return self.labels[0]

  def _create_examples(self, rows, set_type):
    examples = []
    for i, row in enumerate(rows):
      if i == 0:
        continue
      guid = "%s-%s" % (set_type, i if self.id_column is None else
                        row.get(self.id_column, "the id"))
      if set_type == "test":
        a, b = self.test_columns
        examples.append(_example(guid, row, a, b, label=self._test_label()))
      else:
        a, b, label = self.columns
        examples.append(_example(guid, row, a, b, label))
    return examples


class MnliProcessor(SplitFilesProcessor):
  """MultiNLI (GLUE): sentences in columns 8 and 9, gold label last."""

  dev_file = "dev_matched.tsv"
  dev_name = "dev_matched"
  test_file = "test_matched.tsv"
  columns = (8, 9, -1)
  test_columns = (8, 9)
  labels = ("contradiction", "entailment", "neutral")
  id_column = 0


class MnliMismatchedProcessor(MnliProcessor):
  """MultiNLI mismatched dev/test sets (dev_mismatched.tsv)."""

  dev_file = "dev_mismatched.tsv"
  dev_name = "dev_mismatched"
  test_file = "test_mismatched.tsv"


class MrpcProcessor(SplitFilesProcessor):
  """MRPC (GLUE): quality label in column 0, the strings in columns 3, 4."""

  columns = (3, 4, 0)
  test_columns = (3, 4)
  labels = ("0", "1")


class ColaProcessor(SplitFilesProcessor):
  """CoLA (GLUE): train/dev have no header (source, label, -, sentence);
  test has a header and (index, sentence)."""

  labels = ("0", "1")

  def _create_examples(self, rows, set_type):
    examples = []
    for i, row in enumerate(rows):
      if set_type == "test" and i == 0:
        continue
      guid = "%s-%s" % (set_type, i)
      if set_type == "test":
        examples.append(_example(guid, row, 1, label="0"))
      else:
        examples.append(_example(guid, row, 3, label_col=1))
    return examples
