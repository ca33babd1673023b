"""Each task's SavedModel is built in one place: the `server` function of
its `<task>/serving.py`, which its fine-tuning job declares (the driver's
--export_dir) and its task registry entry names (every predictor's
`export`)."""

import pytest

from bert_tf2 import tasks
from bert_tf2.classifier.job import ClassifierJob
from bert_tf2.classifier.multi_label import MultiLabelJob
from bert_tf2.common import serving
from bert_tf2.embedding.job import EmbeddingJob
from bert_tf2.finetune.job import Job
from bert_tf2.multiple_choice.job import MultipleChoiceJob
from bert_tf2.ner.job import NerJob
from bert_tf2.squad.job import SquadJob

JOBS = [("classifier", ClassifierJob), ("classifier", MultiLabelJob),
        ("ner", NerJob), ("squad", SquadJob),
        ("multiple_choice", MultipleChoiceJob), ("embedding", EmbeddingJob)]


@pytest.mark.parametrize("name,job", JOBS)
def test_the_job_and_the_registry_serve_with_one_function(name, job):
  server = tasks.get(name).server
  assert job.server is server
  assert server.__module__ == "bert_tf2.%s.serving" % name
  # A job that declares none serves with the generic one.
  assert Job.server is serving.server
