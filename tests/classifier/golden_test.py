"""Our processors and features equal the original run_classifier.py's."""

import json
import os

import pytest

import tokenization
from bert_tf2.classifier import registry
from bert_tf2.classifier.features import convert_single_example
from bert_tf2.classifier.processors import InputExample
from tests.classifier import glue_fixtures
from tests.golden import run_golden

LABELS = ["0", "1", "2"]
EXAMPLES = [
    ["s-1", "Hello world, this is a fairly long first sentence.", None, "0"],
    ["p-1", "Is this Jacksonville?", "No it is not, it's a much longer "
     "sentence about somewhere else entirely.", "1"],
    ["p-2", "A long first segment with many many words in it to trim.",
     "short", "2"],
    ["p-3", "equal length a b", "equal length c d", "0"],
    ["m-1", "Un homme déjà âgé lit « Le Monde » à Zürich.",
     "他说，妈妈，我回来了。", "1"],
    ["m-2", "Ελληνικά και русский текст, ١٢٣ and emoji \U0001F600 here",
     "", "2"],
    ["e-1", "", None, "0"],
    ["e-2", "   \t ", "   ", "1"],
    ["c-1", "Control\x00chars\u200b and\ufeff zero\u00adwidth", "x" * 300,
     "2"],
]
MAX_SEQ_LENGTHS = [5, 8, 16, 128]


@pytest.mark.golden
def test_features_and_processors_match_original(tmp_path):
  task_dirs = {}
  for task, write in glue_fixtures.ORIGINAL_WRITERS.items():
    task_dirs[task] = os.path.join(str(tmp_path), task)
    write(task_dirs[task])
  spec = {"vocab_file": glue_fixtures.minilm_vocab(), "do_lower_case": True,
          "label_list": LABELS, "max_seq_lengths": MAX_SEQ_LENGTHS,
          "examples": EXAMPLES, "task_dirs": task_dirs}
  spec_path = os.path.join(str(tmp_path), "spec.json")
  out_path = os.path.join(str(tmp_path), "out.json")
  with open(spec_path, "w") as f:
    json.dump(spec, f)
  run_golden("tests.golden.classifier_golden", spec_path, out_path)
  with open(out_path) as f:
    want = json.load(f)

  tokenizer = tokenization.FullTokenizer(glue_fixtures.minilm_vocab(), True)
  examples = [InputExample(*e) for e in EXAMPLES]
  for n in MAX_SEQ_LENGTHS:
    got = []
    for i, ex in enumerate(examples):
      f = convert_single_example(i, ex, LABELS, n, tokenizer)
      got.append([f.input_ids, f.input_mask, f.segment_ids, f.label_id])
    assert len(want["features"][str(n)]) == len(EXAMPLES), n
    assert got == want["features"][str(n)], n

  for task, data_dir in task_dirs.items():
    proc = registry.get_processor(task)
    assert proc.get_labels() == want["tasks"][task]["labels"]
    splits = [s for s in ("train", "dev", "test") if s in want["tasks"][task]]
    assert splits, task  # The original read something of every task.
    for split in splits:
      got = [[e.guid, e.text_a, e.text_b, e.label] for e in
             getattr(proc, "get_%s_examples" % split)(data_dir)]
      assert want["tasks"][task][split], (task, split)  # Not empty.
      assert got == want["tasks"][task][split], (task, split)
