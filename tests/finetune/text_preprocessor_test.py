"""Every fine-tuning job exports with the preprocessor its model.json record
describes (`Job.preprocessor_class.from_record`: the task's preprocessor
class), the record `bert_tf2.models.load(output_dir)` builds from:
one source for both paths, whatever the settings."""

import types

import pytest

from bert_tf2.classifier.job import ClassifierJob
from bert_tf2.common.preprocessor import BertPreprocessor
from bert_tf2.embedding.job import EmbeddingJob
from bert_tf2.multiple_choice.job import MultipleChoiceJob
from bert_tf2.multiple_choice.preprocessor import MultipleChoicePreprocessor
from bert_tf2.ner.job import NerJob
from bert_tf2.ner.preprocessor import NerPreprocessor
from bert_tf2.squad.job import SquadJob
from bert_tf2.squad.preprocessor import SquadPreprocessor

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"]
# Settings unlike every default, so a setting a job drops shows.
SETTINGS = dict(vocab_file=VOCAB, do_lower_case=False, max_seq_length=24,
                doc_stride=5, long_text="sliding_window", max_query_length=7,
                crf=True, pooling="cls", normalize=False, scale=10.0,
                n_best_size=3, max_answer_length=9,
                version_2_with_negative=True, null_score_diff_threshold=0.5)
LABELS = ["O", "B-PER", "I-PER"]


def _job(cls, **attributes):
  job = object.__new__(cls)  # The record needs settings, not data.
  job.settings = types.SimpleNamespace(**SETTINGS)
  for name, value in attributes.items():
    setattr(job, name, value)
  return job


JOBS = {
    "classifier": (_job(ClassifierJob, label_list=["x", "y"], regression=False,
                        multi_label=False), BertPreprocessor),
    "embedding": (_job(EmbeddingJob), BertPreprocessor),
    "multiple_choice": (_job(MultipleChoiceJob, num_choices=3),
                        MultipleChoicePreprocessor),
    "ner": (_job(NerJob, label_list=LABELS, allowed=None), NerPreprocessor),
    "squad": (_job(SquadJob), SquadPreprocessor),
}


@pytest.mark.parametrize("task", sorted(JOBS))
def test_the_exported_preprocessor_is_the_recorded_one(task):
  job, cls = JOBS[task]
  record = job.model_record()
  assert record["task"] == task
  pre = job.preprocessor_class.from_record(job.settings.vocab_file, record)
  assert type(pre) is cls  # pylint: disable=unidiomatic-typecheck
  config = pre.get_config()
  assert config["vocabulary"] == VOCAB
  for name, value in record["preprocessor"].items():
    assert config.get(name, getattr(pre, name)) == value, name
  # The run's flags reach the preprocessor through the record.
  assert pre.do_lower_case is False and pre.max_seq_length == 24
  if task in ("classifier", "ner", "squad"):
    assert pre.doc_stride == 5
  if task == "ner":
    assert pre.labels == LABELS

