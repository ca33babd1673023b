"""bert_tf2.common.strict_json: what `json` accepts but no record holds
is one line naming the file, before the parser recurses."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import strict_json

PATH = "/run/model.json"


def test_deep_nesting_is_refused_before_parsing():
  data = ('{"outputs": ' + "[" * 200000 + "]" * 200000 + "}").encode()
  with pytest.raises(InputError, match="nested 200001 deep"):
    strict_json.parse(PATH, data)


def test_brackets_inside_strings_do_not_count_as_nesting():
  record = strict_json.parse(PATH, json.dumps({"a": "[[[[[[[[[[[["})
                               .encode())
  assert record == {"a": "[[[[[[[[[[[["}


@pytest.mark.parametrize("text,words", [
    ('{"task": "ner", "task": "squad"}', ["duplicate key 'task'"]),
    ('{"threshold": NaN}', ["NaN is not JSON"]),
    ("[1]", ["not a JSON object"]),
    ("", ["not valid JSON"])])
def test_damaged_json_is_one_line(text, words):
  with pytest.raises(InputError) as e:
    strict_json.parse(PATH, text.encode())
  assert "\n" not in str(e.value) and PATH in str(e.value)
  for word in words:
    assert word in str(e.value), str(e.value)
