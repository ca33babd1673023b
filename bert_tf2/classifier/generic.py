"""A processor for your own TSV/CSV files, configured without code.

`run_classifier.py --task_name=tsv` (or `csv`) reads --train_file,
--dev_file and --test_file in --data_dir, columns by 0-based index or
header name (the flags of `classifier.flags`; docs/classifier.md). The test
file may omit the label column (its examples get the first label). Bad
rows are an InputError naming the file and line.

Example:
  >>> import os, tempfile
  >>> d = tempfile.mkdtemp()
  >>> _ = open(os.path.join(d, "train.tsv"), "w").write(
  ...     "label\\tsentence\\npos\\tGreat fun .\\nneg\\tDull .\\n")
  >>> p = GenericProcessor(d, text_a_column="sentence", label_column="label")
  >>> p.get_labels()
  ['neg', 'pos']
  >>> [(e.text_a, e.label) for e in p.get_train_examples(d)]
  [('Great fun .', 'pos'), ('Dull .', 'neg')]
"""

import os

from bert_tf2.common import InputError
from bert_tf2.classifier.glue import parse_float_label
from bert_tf2.classifier.processors import DataProcessor
from bert_tf2.classifier.processors import InputExample

_DELIMITERS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";",
               "pipe": "|"}


def parse_delimiter(value, flag="delimiter"):
  """Returns the one-character delimiter a flag value names."""
  value = _DELIMITERS.get(value, value)
  if len(value) != 1:
    raise InputError("--%s=%r: must be one character (or tab, comma, "
                     "semicolon, pipe)" % (flag, value))
  return value


def check_text_a(text_a, set_type, where, column):
  """Refuses an empty text_a in train/dev (a broken row: a shifted column, a
  stray quote); an empty test text is answered as `[CLS] [SEP]`."""
  if set_type != "test" and not text_a.strip():
    raise InputError("%s: text_a (column %d) is empty" % (where, column))


class GenericProcessor(DataProcessor):
  """Reads labelled TSV/CSV files with configurable columns and labels."""

  def __init__(self, data_dir, text_a_column="0", text_b_column=None,
               label_column="1", label_list=None, has_header=True,
               delimiter="\t", quotechar=None, train_file="train.tsv",
               dev_file="dev.tsv", test_file="test.tsv", regression=False):
    self.data_dir = data_dir
    self.text_a_column = str(text_a_column)
    self.text_b_column = (str(text_b_column) if text_b_column not in
                          (None, "") else None)
    self.label_column = str(label_column)
    self.label_list = list(label_list) if label_list else None
    self.has_header = has_header
    self.delimiter = parse_delimiter(delimiter)
    self.quotechar = quotechar or None
    self.files = {"train": train_file, "dev": dev_file, "test": test_file}
    self.is_regression = regression
    if regression:
      self.label_list = [None]

  def get_train_examples(self, data_dir):
    return self._create_examples(data_dir, "train")

  def get_dev_examples(self, data_dir):
    return self._create_examples(data_dir, "dev")

  def get_test_examples(self, data_dir):
    return self._create_examples(data_dir, "test")

  def get_labels(self):
    if self.label_list is None:
      labels = set()
      for ex in self._create_examples(self.data_dir, "train",
                                      check_labels=False):
        labels.add(ex.label)
      if not labels:
        raise InputError("--label_list is empty and %s has no examples" %
                         os.path.join(self.data_dir, self.files["train"]))
      self.label_list = sorted(labels)
    return list(self.label_list)

  def _resolve(self, column, header, path, flag):
    """Returns the 0-based index of `column` (an index or a header name)."""
    if column.lstrip("-").isdigit():
      return int(column)
    if header is None:
      raise InputError("--%s=%s: a column name needs a header line "
                       "(--has_header)" % (flag, column))
    if column not in header:
      raise InputError("--%s=%s: %s has no such column; its header is %s"
                       % (flag, column, path, header))
    return header.index(column)

  def _label_indexes(self, header, path):
    """The label column's index (`MultiLabelProcessor`: a list)."""
    return self._resolve(self.label_column, header, path, "label_column")

  def _table(self, data_dir, set_type):
    """(rows without the header, text_a index, text_b index or None,
    `_label_indexes`, or None for a test file without labels)."""
    path = os.path.join(data_dir, self.files[set_type])
    rows = self._rows(data_dir, self.files[set_type], self.delimiter,
                      self.quotechar)
    header = None
    if self.has_header and rows:
      header, rows = rows[0].fields, rows[1:]
    elif self.has_header and set_type != "test":
      raise InputError("%s: the file is empty (expected a header line and "
                       "examples)" % path)
    a = self._resolve(self.text_a_column, header, path, "text_a_column")
    b = (self._resolve(self.text_b_column, header, path, "text_b_column")
         if self.text_b_column is not None else None)
    try:
      return rows, a, b, self._label_indexes(header, path)
    except InputError:
      if set_type != "test":
        raise
      return rows, a, b, None  # An unlabelled test file with a header.

  def _create_examples(self, data_dir, set_type, check_labels=True):
    rows, a, b, label_index = self._table(data_dir, set_type)
    labels = self.get_labels() if check_labels else None
    examples = []
    for i, row in enumerate(rows):
      text_a = row.get(a, "text_a")
      text_b = row.get(b, "text_b") if b is not None else None
      check_text_a(text_a, set_type, row.where(), a)
      label = None
      if label_index is not None and (set_type != "test" or
                                      len(row.fields) > label_index):
        label = row.get(label_index, "the label")
      if self.is_regression:
        label = 0.0 if label is None else parse_float_label(label,
                                                            row.where())
      elif label is None:
        label = labels[0]
      elif labels is not None and label not in labels:
        raise InputError("%s: unknown label %r; --label_list is %s" %
                         (row.where(), label, ",".join(labels)))
      examples.append(InputExample(guid="%s-%d" % (set_type, i),
                                   text_a=text_a, text_b=text_b, label=label,
                                   source=row.where()))
    return examples
