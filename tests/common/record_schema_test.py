"""bert_tf2.common.record_schema: what each task's writer writes passes;
anything else is one line naming model.json, the key, the value and what
is allowed (the real runs' records: tests/common/record_mutation_test.py).
"""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import record_schema
from bert_tf2.common import strict_json

PATH = "/run/model.json"


def _record(task="classifier", **sections):
  record = {"format": "bert_tf2.model", "version": 1, "task": task,
            "config": "bert_config.json", "vocabulary": "vocab.txt",
            "sha256": {"vocab.txt": "0" * 64}}
  record.update(sections)
  return record


# What each task's job.py `model_record` writes (one record a task).
WRITTEN = [
    _record("classifier", preprocessor=dict(
        do_lower_case=True, max_seq_length=16, long_text="sliding_window",
        doc_stride=64), model=dict(num_labels=2, multi_label=True,
                                   threshold=0.5),
            outputs=dict(labels=["no", "yes"], regression=False)),
    _record("classifier", model=dict(num_labels=1),
            outputs=dict(labels=[None], regression=True)),
    _record("ner", preprocessor=dict(do_lower_case=False, max_seq_length=16,
                                     doc_stride=8),
            model=dict(labels=["O", "B-PER"], crf=True,
                       allowed=[[[True, True], [True, False]],
                                [True, False], [True, True]])),
    _record("squad", preprocessor=dict(do_lower_case=True, max_seq_length=64,
                                       doc_stride=32, max_query_length=16),
            model=dict(n_best_size=20, max_answer_length=30,
                       version_2_with_negative=False,
                       null_score_diff_threshold=0.0)),
    _record("multiple_choice", preprocessor=dict(do_lower_case=True,
                                                 max_seq_length=32),
            outputs=dict(num_choices=4)),
    _record("embedding", preprocessor=dict(do_lower_case=True,
                                           max_seq_length=32),
            model=dict(pooling_mode="mean", normalize=True, scale=20.0)),
    dict(_record("pretraining", preprocessor=dict(max_seq_length=32)),
         precision="bfloat16"),
]


@pytest.mark.parametrize("record", WRITTEN, ids=lambda r: r["task"])
def test_what_the_writers_write_passes(record):
  parsed = strict_json.parse(PATH, json.dumps(record).encode("utf-8"))
  record_schema.check(PATH, parsed)
  record_schema.check_against(PATH, parsed, 64)
  assert parsed == record


@pytest.mark.parametrize("section,key,value,words", [
    ("preprocessor", "max_seq_length", True, ["true", "integer"]),
    ("preprocessor", "max_seq_length", "16", ['"16"']),
    ("preprocessor", "max_seq_length", 16.7, ["16.7"]),
    ("preprocessor", "do_lower_case", "false", ["true or false"]),
    ("preprocessor", "doc_stride", -1, ["-1"]),
    ("model", "num_labels", 10 ** 12, ["1000000000000", "100000]"]),
    ("outputs", "labels", "ab", ['"ab"', "list"]),
    ("outputs", "labels", ["a", "a"], ["distinct"]),
    ("outputs", "labels", ["a", 1], ["strings"]),
    ("model", "threshold", 2.0, ["threshold", "[0, 1]"]),
    ("outputs", "extra", 1, ["outputs.extra", "no such key"]),
    (None, "extra", 1, ['"extra"', "no such key"]),
    (None, "precision", "int4", ['"precision"', '"float16"']),
    (None, "version", 2, ['"version"', "1"]),
    (None, "sha256", {"vocab.txt": "ab"}, ["sha256", "hex"]),
])
def test_a_bad_value_is_one_line_naming_key_value_and_allowed(section, key,
                                                              value, words):
  record = _record(model={"num_labels": 2},
                   outputs={"labels": ["no", "yes"]})
  (record if section is None else record.setdefault(section, {}))[key] = value
  if key == "labels" and isinstance(value, list):
    record["model"]["num_labels"] = len(value)
  with pytest.raises(InputError) as e:
    record_schema.check(PATH, record)
  message = str(e.value)
  assert "\n" not in message and message.startswith(PATH + ": "), message
  assert key in message, message
  for word in words:
    assert word in message, (word, message)


def test_lengths_against_the_config_and_labels_against_the_head():
  record = _record("ner", preprocessor=dict(max_seq_length=16, doc_stride=15),
                   model=dict(labels=["O", "B-PER", "I-PER"]))
  with pytest.raises(InputError, match=r"doc_stride.*\[1, 14\]"):
    record_schema.check_against(PATH, record, 512)
  with pytest.raises(InputError, match="max_position_embeddings"):
    record_schema.check_against(PATH, record, 8)
  with pytest.raises(InputError, match=r"model.labels.*head has 2 outputs"):
    record_schema.check_head(PATH, record, {"output_bias": [2]})
  record_schema.check_head(PATH, record, {"output_bias": [3]})
  record_schema.check_head(PATH, record, {"bert/pooler/dense/bias": [3]})
