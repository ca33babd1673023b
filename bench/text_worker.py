"""A warm benchmark worker for raw text: one process per variant, timed on
request, so that `bench.bench_text_e2e` can interleave variants without
loading a model again each round.

Every variant is timed on the same batches: the orchestrator writes the
texts and, per batching policy, the batches (lists of text indexes) into
one JSON file; the worker calls its `answer_batch(texts)` once per batch
(each side pads a batch to its own longest text) and puts the answers
back in input order. A variant whose library has a call of its own over a
whole list (ours' predictors, the Hugging Face pipeline, keras-hub's
`predict`) also has the policy "whole": that call on all texts at once,
with the library's own batching.

Protocol (stdin / stdout, one line each): the worker prints `READY` once
its model is loaded and has answered every text once under every policy
(every batch shape traced or compiled); then for every line `run POLICY`
it times one pass over all texts and prints
`RESULT {"seconds": ..., "texts": ..., "labels": [...]}` (labels: class
indexes, in input order; `{"error": ...}` for a policy the variant does
not have); `quit` (or end of input) ends it. Imports nothing but the
standard library, so every peer's environment can run it.
"""

import json
import sys
import time


def answer_all(answer_batch, texts, batches):
  """The answers of `answer_batch` over `batches` (lists of indexes into
  texts, together each index once), in the order of texts."""
  labels = [None] * len(texts)
  for batch in batches:
    for i, label in zip(batch, answer_batch([texts[i] for i in batch])):
      labels[i] = int(label)
  return labels


def serve(answer_batch, data, whole=None):
  """Runs the protocol above. answer_batch(texts) -> class indexes of one
  batch (None: the variant has the policy "whole" only); data: `read_data`'s dict; whole(texts) -> class indexes of all
  texts by the library's own call, or None."""
  texts, batches = data["texts"], data["batches"]
  passes = {name: (lambda b=b: answer_all(answer_batch, texts, b))
            for name, b in batches.items() if answer_batch is not None}
  if whole is not None:
    passes["whole"] = lambda: [int(l) for l in whole(texts)]
  for run in passes.values():
    run()
  print("READY", flush=True)
  for line in sys.stdin:
    command = line.split()
    if command[:1] == ["quit"]:
      break
    if len(command) != 2 or command[0] != "run":
      continue
    if command[1] not in passes:
      print("RESULT " + json.dumps({"error": "no policy " + command[1]}),
            flush=True)
      continue
    start = time.perf_counter()
    labels = passes[command[1]]()
    seconds = time.perf_counter() - start
    print("RESULT " + json.dumps({"seconds": seconds, "texts": len(texts),
                                  "labels": labels}), flush=True)


def read_data(path):
  """The {"texts": [...], "batches": {policy: [[index, ...], ...]}} file
  that `bench_text_e2e` writes."""
  with open(path, encoding="utf-8") as f:
    return json.load(f)
