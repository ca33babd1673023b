"""Golden run of the original run_classifier.py (processors and features).

Usage: python -m tests.golden.classifier_golden SPEC.json OUT.json

SPEC: {"vocab_file", "do_lower_case", "label_list", "max_seq_lengths": [...],
       "examples": [[guid, text_a, text_b or null, label], ...],
       "task_dirs": {task_name: data_dir}}
OUT:  {"features": {str(max_seq_length): [[input_ids, input_mask,
        segment_ids, label_id], ...]},
       "tasks": {task_name: {"train"|"dev"|"test": [[guid, a, b, label]...]}}}
"""

import json
import sys

from tests.golden import original


def main(spec_path, out_path):
  with open(spec_path) as f:
    spec = json.load(f)
  rc = original.load("run_classifier")
  tokenization = original.load("tokenization")
  tokenizer = tokenization.FullTokenizer(spec["vocab_file"],
                                         spec["do_lower_case"])
  examples = [rc.InputExample(g, a, b, l) for g, a, b, l in spec["examples"]]
  features = {}
  for n in spec["max_seq_lengths"]:
    rows = []
    for i, ex in enumerate(examples):
      feat = rc.convert_single_example(i, ex, spec["label_list"], n, tokenizer)
      rows.append([feat.input_ids, feat.input_mask, feat.segment_ids,
                   feat.label_id])
    features[str(n)] = rows
  processors = {"cola": rc.ColaProcessor, "mnli": rc.MnliProcessor,
                "mrpc": rc.MrpcProcessor, "xnli": rc.XnliProcessor}
  tasks = {}
  for name, data_dir in spec["task_dirs"].items():
    proc = processors[name]()
    out = {}
    for split in ("train", "dev", "test"):
      getter = getattr(proc, "get_%s_examples" % split)
      try:
        exs = getter(data_dir)
      except NotImplementedError:
        continue
      out[split] = [[e.guid, e.text_a, e.text_b, e.label] for e in exs]
    out["labels"] = proc.get_labels()
    tasks[name] = out
  with open(out_path, "w") as f:
    json.dump({"features": features, "tasks": tasks}, f)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
