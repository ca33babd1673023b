"""A warm benchmark worker for raw text: one process per variant, timed on
request, so that `bench.bench_text_e2e` can interleave variants without
loading a model again each round.

Protocol (stdin / stdout, one line each): the worker prints `READY` once
its model is loaded and has answered every text once; then for every line `run` it times one
pass of `answer(texts)` over all texts and prints
`RESULT {"seconds": ..., "texts": ..., "labels": [...]}`; `quit` (or end
of input) ends it. Imports nothing but the standard library, so every
peer's environment (keras-hub, Hugging Face) can run it.
"""

import json
import sys
import time


def serve(answer, texts):
  """Runs the protocol above with `answer(texts) -> list of labels`; one
  untimed pass first (every batch shape traced or compiled)."""
  answer(texts)
  print("READY", flush=True)
  for line in sys.stdin:
    command = line.strip()
    if command == "quit":
      break
    if command != "run":
      continue
    start = time.perf_counter()
    labels = answer(texts)
    seconds = time.perf_counter() - start
    print("RESULT " + json.dumps({"seconds": seconds, "texts": len(texts),
                                  "labels": [str(l) for l in labels]}),
          flush=True)


def read_texts(path):
  """The texts of a file written by `bench_text_e2e` (one JSON list)."""
  with open(path, encoding="utf-8") as f:
    return json.load(f)
