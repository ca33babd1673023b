"""Task names -> processors, as `--task_name` selects them.

The original's names (cola, mnli, mrpc, xnli) plus the other GLUE tasks and
the generic `tsv` / `csv` processors (see generic.py). Names are
case-insensitive; "sst2" and "stsb" are accepted as aliases.

Example:
  >>> type(get_processor("MRPC")).__name__
  'MrpcProcessor'
"""

from bert_tf2.common import InputError
from bert_tf2.classifier import generic
from bert_tf2.classifier import glue
from bert_tf2.classifier import processors

PROCESSORS = {
    "cola": processors.ColaProcessor,
    "mnli": processors.MnliProcessor,
    "mnli-mm": processors.MnliMismatchedProcessor,
    "mrpc": processors.MrpcProcessor,
    "xnli": processors.XnliProcessor,
    "sst-2": glue.Sst2Processor,
    "qnli": glue.QnliProcessor,
    "qqp": glue.QqpProcessor,
    "rte": glue.RteProcessor,
    "wnli": glue.WnliProcessor,
    "sts-b": glue.StsbProcessor,
}
ALIASES = {"sst2": "sst-2", "stsb": "sts-b", "mnli_mismatched": "mnli-mm"}
GENERIC = ("tsv", "csv")


def get_processor(task_name, data_dir=None, generic_options=None,
                  generic_class=generic.GenericProcessor):
  """Returns the processor for `task_name` (case-insensitive); tsv/csv:
  `generic_class(data_dir, **generic_options)`. InputError if unknown."""
  name = (task_name or "").lower()
  name = ALIASES.get(name, name)
  if name in PROCESSORS:
    return PROCESSORS[name]()
  if name in GENERIC:
    options = dict(generic_options or {})
    if name == "csv":
      options.setdefault("delimiter", ",")
      options.setdefault("quotechar", '"')
      for split in ("train", "dev", "test"):
        options.setdefault("%s_file" % split, "%s.csv" % split)
    return generic_class(data_dir, **options)
  raise InputError("--task_name=%s: task not found; known tasks: %s" %
                   (task_name, ", ".join(sorted(PROCESSORS) + list(GENERIC))))
