"""Property tests: random bytes / Unicode as TSV and CSV data files.

Every processor must either return well-formed InputExamples or raise a
clear InputError naming the file; never another exception, never hang.
"""

import os
import shutil
import tempfile

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from bert_tf2.common import InputError
from bert_tf2.classifier import registry
from bert_tf2.classifier.features import convert_single_example
from bert_tf2.classifier.processors import InputExample

TASKS = ["cola", "mnli", "mrpc", "xnli", "sst-2", "qnli", "qqp", "rte",
         "wnli", "sts-b", "tsv", "csv"]
_ALPHABET = st.sampled_from(list("ab \t,\"'\r\n\\0é中\x00\u2028\ufeff-1.5"))

CONTENTS = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.text(alphabet=_ALPHABET, max_size=300).map(lambda s: s.encode("utf-8")),
)


class _Tok(object):
  def tokenize(self, text):
    return text.split()

  def convert_tokens_to_ids(self, tokens):
    return [len(t) for t in tokens]


def _files(task):
  if task == "xnli":
    return [os.path.join("multinli", "multinli.train.zh.tsv"), "xnli.dev.tsv"]
  if task == "csv":
    return ["train.csv", "dev.csv", "test.csv"]
  if task in ("mnli",):
    return ["train.tsv", "dev_matched.tsv", "test_matched.tsv"]
  return ["train.tsv", "dev.tsv", "test.tsv"]


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(task=st.sampled_from(TASKS), data=CONTENTS)
def test_random_files_give_examples_or_input_error(task, data):
  d = tempfile.mkdtemp()
  try:
    for name in _files(task):
      path = os.path.join(d, name)
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, "wb") as f:
        f.write(data)
    options = {"text_a_column": "0", "text_b_column": "1",
               "label_column": "2"}
    proc = registry.get_processor(task, d, options)
    getters = [proc.get_train_examples, proc.get_dev_examples]
    if task != "xnli":
      getters.append(proc.get_test_examples)
    for getter in getters:
      try:
        examples = getter(d)
        labels = proc.get_labels()
      except InputError as e:
        assert d in str(e) or "--" in str(e)
        continue
      for i, ex in enumerate(examples):
        assert isinstance(ex, InputExample)
        assert isinstance(ex.text_a, str)
        assert ex.text_b is None or isinstance(ex.text_b, str)
        try:
          feat = convert_single_example(i, ex, labels, 12, _Tok())
        except InputError as e:
          assert "unknown label" in str(e) and d in str(e)
          continue
        assert len(feat.input_ids) == 12
  finally:
    shutil.rmtree(d)
