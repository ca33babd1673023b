"""Golden run: Google's original FullTokenizer over many texts, to a file.

    python -m tests.golden.tokenization_golden SPEC_JSON OUT_JSON

SPEC_JSON holds {"runs": [{"vocab_file": str, "do_lower_case": bool,
"preserve_unused_tokens": bool, "texts_file": str}, ...]}; each texts_file is
a JSON list whose items are str, or {"b64": "..."} for raw bytes input.
OUT_JSON gets {"runs": [{"tokens": [[str, ...] per text], "ids": [...]}]};
a text on which the original raises gets {"error": "<ExceptionType>"} in
place of its token list.
"""

import base64
import json
import sys


def _decode(item):
  if isinstance(item, dict):
    return base64.b64decode(item["b64"])
  return item


def main(spec_path, out_path):
  from tests.golden import original  # pylint: disable=g-import-not-at-top
  tokenization = original.load("tokenization")
  with open(spec_path) as f:
    spec = json.load(f)
  results = []
  for run in spec["runs"]:
    tokenization.FLAGS.preserve_unused_tokens = bool(
        run.get("preserve_unused_tokens", False))
    tokenizer = tokenization.FullTokenizer(
        vocab_file=run["vocab_file"], do_lower_case=run["do_lower_case"])
    with open(run["texts_file"]) as f:
      texts = [_decode(t) for t in json.load(f)]
    tokens, ids = [], []
    for text in texts:
      try:
        pieces = tokenizer.tokenize(text)
      except Exception as e:  # pylint: disable=broad-except
        tokens.append({"error": type(e).__name__})
        ids.append(None)
        continue
      tokens.append(pieces)
      try:
        ids.append(tokenizer.convert_tokens_to_ids(pieces))
      except KeyError:
        ids.append(None)
    result = {"tokens": tokens, "ids": ids}
    if run.get("dump_vocab"):
      result["vocab"] = [[k, v] for k, v in tokenizer.vocab.items()]
    results.append(result)
  with open(out_path, "w") as f:
    json.dump({"runs": results}, f)


if __name__ == "__main__":
  main(sys.argv[1], sys.argv[2])
