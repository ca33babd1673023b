"""Why position tables become relative: a controlled synthetic experiment.

A tiny BertModel (learned absolute position table, toy_training) learns
to copy: at each text position i, heads j = 1..len(offsets) predict the
token offsets[j] places before it (random tokens, so nothing but the
relative offset gives the answer). The arms change one cause each:

  random   the text (text_length tokens) starts at a random position in
           [0, seq_length - text_length], [PAD] elsewhere;
  fixed    the same texts (same tokens, same order) always at position 0;
  packed   the window filled (seq_length tokens from position 0), as the
           original's create_pretraining_data.py fills 128 positions;
  absolute the fixed arm's texts, but head j's answer at text position i
           is the token at sources[j][i], drawn once per seed so that no
           two positions share an offset (source - i) in a head: the data
           never shows an offset twice.

Every `every` steps the position table goes through
relative_position.relative_position_verdict on the arm's own positions
(those that ever hold text: all for random and packed, 0..text_length-1
for fixed and absolute) and on the positions all arms share
(0..text_length-1): verdict and the graded score (mean_map_skill); and the same
on what training added to the table (table - initial table, the arm's own
positions), which the random initial rows otherwise hide. Each (arm, seed)
starts from the same weights as the other arms of that seed.

  python -m bert_research.analysis.positions_why_synthetic --output_dir=D \\
      [--steps=1500 --every=100 --seeds=3 --arms=random,fixed,packed,absolute]

writes D/positions_why.json (every checkpoint of every run) and
D/positions_why.png (the curves). docs/results/positions_why.md.

Example (the batches of two arms of one seed hold the same texts):
  >>> sizes = Sizes(seq_length=12, text_length=6, batch=2)
  >>> a = arm_batch("random", sizes, *batch_rngs(0, 0))
  >>> b = arm_batch("fixed", sizes, *batch_rngs(0, 0))
  >>> bool((a["input_ids"][a["input_mask"] == 1]
  ...       == b["input_ids"][b["input_mask"] == 1]).all())
  True
"""

import argparse
import collections
import json
import os

import numpy as np

from bert_research.analysis import relative_position
from tokenization import atomic
from tokenization.errors import InputError

ARMS = ("random", "fixed", "packed", "absolute")
PAD = 0
JSON_NAME, PLOT_NAME = "positions_why.json", "positions_why.png"

Sizes = collections.namedtuple("Sizes", [
    "seq_length", "text_length", "vocab_size", "hidden_size", "layers",
    "heads", "batch", "offsets"])
Sizes.__new__.__defaults__ = (64, 32, 32, 64, 1, 4, 64, (1, 2, 3))


def batch_rngs(seed, step):
  """(token rng, start rng) of one step: the texts depend on (seed, step)
  only, the starts on a second stream, so arms share their texts."""
  return (np.random.RandomState([seed, step, 0]),
          np.random.RandomState([seed, step, 1]))


def distinct_offset_sources(n, count, rng, tries=100):
  """`count` lookups over n positions, none sharing an offset within one.

  Args:
    n: int, positions 0..n-1; count: int; rng: numpy RandomState.

  Returns:
    int numpy [count, n]: row j maps position i to a source s != i, the
    offsets s - i all different within the row.
  """
  out = []
  for _ in range(count):
    for _ in range(tries):
      used, row = set(), []
      for i in rng.permutation(n):
        free = [s for s in range(n) if s != i and s - i not in used]
        if not free:
          break
        s = free[rng.randint(len(free))]
        used.add(s - i)
        row.append((i, s))
      if len(row) == n:
        out.append([s for _, s in sorted(row)])
        break
    else:
      raise ValueError("no distinct-offset lookup over %d positions" % n)
  return np.array(out)


def text_length_of(arm, sizes):
  """Tokens of text per sequence: the window for packed, else text_length."""
  return sizes.seq_length if arm == "packed" else sizes.text_length


def arm_batch(arm, sizes, token_rng, start_rng, sources=None):
  """One batch of an arm.

  Args:
    arm: one of ARMS; sizes: Sizes.
    token_rng, start_rng: numpy RandomStates (`batch_rngs`).
    sources: int [len(offsets), text_length], the absolute arm's lookups.

  Returns:
    dict: input_ids, input_mask int32 [B, S]; targets int32 [K, B, S],
    weights float32 [K, B, S] (K = len(sizes.offsets)); starts int [B].
  """
  s, b, k = sizes.seq_length, sizes.batch, len(sizes.offsets)
  n = text_length_of(arm, sizes)
  texts = token_rng.randint(1, sizes.vocab_size, size=(b, n))
  starts = (start_rng.randint(0, s - n + 1, size=b) if arm == "random"
            else np.zeros(b, np.int64))
  ids = np.full((b, s), PAD, np.int32)
  mask = np.zeros((b, s), np.int32)
  targets = np.zeros((k, b, s), np.int32)
  weights = np.zeros((k, b, s), np.float32)
  for r in range(b):
    at = slice(starts[r], starts[r] + n)
    ids[r, at], mask[r, at] = texts[r], 1
    for j, offset in enumerate(sizes.offsets):
      if arm == "absolute":
        targets[j, r, at], weights[j, r, at] = texts[r][sources[j]], 1.0
      else:
        targets[j, r, starts[r] + offset:starts[r] + n] = texts[r][:n - offset]
        weights[j, r, starts[r] + offset:starts[r] + n] = 1.0
  return {"input_ids": ids, "input_mask": mask, "targets": targets,
          "weights": weights, "starts": starts}


def regions(arm, sizes):
  """{"own": positions that ever hold the arm's text, "common": the
  positions every arm fills, 0..text_length-1}, as slices."""
  own = sizes.seq_length if arm in ("random", "packed") else sizes.text_length
  return {"own": slice(0, own), "common": slice(0, sizes.text_length)}


def measure(table, init, arm, sizes):
  """The verdict and graded skill of a position table on both regions, and
  of what training added to it (table - init) on the arm's own positions.

  Args:
    table, init: float [S, H], the table now and at step 0.

  Returns:
    dict region ("own", "common", "moved") -> {verdict, up_to_offset,
    passing, mean_map_skill, max_offset, positions}.
  """
  out = {}
  where = regions(arm, sizes)
  where["moved"] = where["own"]
  for name, where in where.items():
    rows = table - init if name == "moved" else table
    rel = relative_position.relative_position_verdict(rows[where],
                                                    interpolation=False)
    out[name] = {key: rel[key] for key in ("verdict", "up_to_offset",
                                          "passing", "mean_map_skill",
                                          "max_offset")}
    out[name]["positions"] = where.stop
  return out


def run_arm(arm, seed, sizes, steps, every, learning_rate=1e-3):
  """Trains one (arm, seed) and measures its table every `every` steps.

  Returns:
    dict: arm, seed, checkpoints (list of {step, loss, accuracy, own,
    common}; step 0 is the initial table), table (float numpy [S, H], the
    last one: not written to the JSON).
  """
  from bert_research.analysis import toy_training  # pylint: disable=g-import-not-at-top
  config = toy_training.tiny_config(sizes.vocab_size, sizes.hidden_size,
                                    sizes.layers, sizes.heads,
                                    sizes.seq_length)
  net = toy_training.ToyNet(config, len(sizes.offsets), seed, learning_rate)
  sources = (distinct_offset_sources(sizes.text_length, len(sizes.offsets),
                                     np.random.RandomState([seed, 2]))
             if arm == "absolute" else None)
  init = net.position_table()
  points = [dict(step=0, loss=None, accuracy=None,
                 **measure(init, init, arm, sizes))]
  for step in range(1, steps + 1):
    loss, accuracy = net.train_step(arm_batch(arm, sizes,
                                              *batch_rngs(seed, step),
                                              sources=sources))
    if step % every == 0 or step == steps:
      points.append(dict(step=step, loss=loss, accuracy=accuracy,
                         **measure(net.position_table(), init, arm,
                                   sizes)))
  return {"arm": arm, "seed": seed, "checkpoints": points,
          "table": net.position_table()}


def summary(runs):
  """Per arm and checkpoint step: the mean and spread over seeds.

  Returns:
    dict arm -> list of {step, accuracy, REGION_skill, REGION_skill_std,
    REGION_verdicts} for REGION own, common, moved (the verdicts: one per
    seed).
  """
  out = collections.OrderedDict()
  for arm in dict.fromkeys(r["arm"] for r in runs):
    mine = [r["checkpoints"] for r in runs if r["arm"] == arm]
    rows = []
    for i, point in enumerate(mine[0]):
      at = [m[i] for m in mine]
      row = {"step": point["step"]}
      if point["accuracy"] is not None:
        row["accuracy"] = float(np.mean([p["accuracy"] for p in at]))
      for region in ("own", "common", "moved"):
        skill = [p[region]["mean_map_skill"] for p in at]
        row[region + "_skill"] = float(np.mean(skill))
        row[region + "_skill_std"] = float(np.std(skill))
        row[region + "_verdicts"] = [p[region]["verdict"] for p in at]
      rows.append(row)
    out[arm] = rows
  return out


def plot_curves(result, path):
  """Accuracy and the graded score (own and shared positions) over training,
  one line per arm (mean over seeds, the band: min..max)."""
  from bert_research.analysis import plots  # pylint: disable=g-import-not-at-top
  fig, axes = plots.new_figure(1, 4, figsize=(19, 4.2))
  titles = ("copy accuracy", "graded score, the arm's own positions",
            "graded score, positions 0..%d (all arms)"
            % (result["sizes"]["text_length"] - 1),
            "graded score of table - init, own positions")
  for arm in result["summary"]:
    mine = [r["checkpoints"] for r in result["runs"] if r["arm"] == arm]
    steps = [p["step"] for p in mine[0]]
    series = (
        [[p["accuracy"] or 0.0 for p in m] for m in mine],
        [[p["own"]["mean_map_skill"] for p in m] for m in mine],
        [[p["common"]["mean_map_skill"] for p in m] for m in mine],
        [[p["moved"]["mean_map_skill"] for p in m] for m in mine])
    for ax, values in zip(axes, series):
      values = np.array(values)
      line, = ax.plot(steps, values.mean(axis=0), label=arm)
      ax.fill_between(steps, values.min(axis=0), values.max(axis=0),
                      color=line.get_color(), alpha=0.2)
  for ax, title in zip(axes, titles):
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("step")
    ax.set_ylim(-0.02, 1.02)
  axes[0].legend()
  plots.save_figure(fig, path)


def experiment(arms, seeds, sizes, steps, every, learning_rate=1e-3,
               log=print):
  """Every (arm, seed) run; the JSON-ready result and the last tables.

  Returns:
    (result dict: sizes, steps, every, learning_rate, arms, seeds, runs,
    summary; {(arm, seed): float numpy [S, H]} the last tables).
  """
  runs, tables = [], {}
  for seed in range(seeds):
    for arm in arms:
      run = run_arm(arm, seed, sizes, steps, every, learning_rate)
      tables[(arm, seed)] = run.pop("table")
      runs.append(run)
      last = run["checkpoints"][-1]
      log("%-8s seed %d step %5d  accuracy %.3f  own %s %.2f  common %s %.2f"
          "  moved %s %.2f"
          % (arm, seed, last["step"], last["accuracy"] or 0.0,
             last["own"]["verdict"], last["own"]["mean_map_skill"],
             last["common"]["verdict"], last["common"]["mean_map_skill"],
             last["moved"]["verdict"], last["moved"]["mean_map_skill"]))
  result = {"sizes": sizes._asdict(), "steps": steps, "every": every,
            "learning_rate": learning_rate, "arms": list(arms),
            "seeds": seeds, "runs": runs, "summary": summary(runs)}
  return result, tables


def parse_sizes(args):
  """Sizes from the flags, checked; InputError names the flag."""
  if args.arms is None or not args.arms:
    raise InputError("--arms: empty")
  for arm in args.arms:
    if arm not in ARMS:
      raise InputError("--arms: unknown arm %r (known: %s)"
                       % (arm, ", ".join(ARMS)))
  for flag, value, least in (("steps", args.steps, 1), ("every", args.every, 1),
                             ("seeds", args.seeds, 1),
                             ("vocab_size", args.vocab_size, 3),
                             ("batch", args.batch, 1)):
    if value < least:
      raise InputError("--%s=%d: must be at least %d" % (flag, value, least))
  offsets = tuple(args.offsets)
  if not offsets or min(offsets) < 1:
    raise InputError("--offsets: each must be at least 1")
  least = max(relative_position.min_rows(), max(offsets) + 1)
  if not least <= args.text_length <= args.seq_length:
    raise InputError("--text_length=%d: must be in [%d, --seq_length=%d] (the "
                     "measures need %d positions)"
                     % (args.text_length, least, args.seq_length, least))
  if args.hidden_size % args.heads:
    raise InputError("--hidden_size=%d: not a multiple of --heads=%d"
                     % (args.hidden_size, args.heads))
  return Sizes(args.seq_length, args.text_length, args.vocab_size,
               args.hidden_size, args.layers, args.heads, args.batch, offsets)


def build_parser():
  d = Sizes()
  p = argparse.ArgumentParser(
      prog="python -m bert_research.analysis.positions_why_synthetic")
  p.add_argument("--output_dir", required=True)
  p.add_argument("--arms", type=lambda s: s.split(","), default=list(ARMS))
  p.add_argument("--seeds", type=int, default=3)
  p.add_argument("--steps", type=int, default=1500)
  p.add_argument("--every", type=int, default=100)
  p.add_argument("--learning_rate", type=float, default=1e-3)
  p.add_argument("--offsets", type=lambda s: [int(v) for v in s.split(",")],
                 default=list(d.offsets))
  for name in ("seq_length", "text_length", "vocab_size", "hidden_size",
               "layers", "heads", "batch"):
    p.add_argument("--" + name, type=int, default=getattr(d, name))
  return p


def main(argv=None):
  args = build_parser().parse_args(argv)
  try:
    sizes = parse_sizes(args)
    if os.path.isfile(args.output_dir):
      raise InputError("--output_dir=%s: is a file" % args.output_dir)
    try:  # Before the runs: a folder that cannot be made fails in seconds.
      os.makedirs(args.output_dir, exist_ok=True)
    except OSError as e:
      raise InputError("--output_dir=%s: %s" % (args.output_dir, e.strerror))
    result, _ = experiment(args.arms, args.seeds, sizes, args.steps,
                           args.every, args.learning_rate)
    atomic.atomic_write_text(os.path.join(args.output_dir, JSON_NAME),
                             json.dumps(result, indent=1))
    plot_curves(result, os.path.join(args.output_dir, PLOT_NAME))
    print_table(result)
  except InputError as e:
    raise SystemExit("error: %s" % e)


def print_table(result):
  """The Markdown table of the summary: every arm at every checkpoint."""
  print("| arm | step | copy accuracy | graded score, own (sd) | verdicts, "
        "own | graded score, 0..%d (sd) | verdicts, 0..%d | graded "
        "score, table - init (sd) | verdicts, table - init |"
        % ((result["sizes"]["text_length"] - 1,) * 2))
  print("|---|---|---|---|---|---|---|---|---|")
  for arm, rows in result["summary"].items():
    for row in rows:
      print("| %s | %d | %s |" % (arm, row["step"], "%.3f" % row["accuracy"]
                                  if "accuracy" in row else "-") + "".join(
          " %.2f (%.2f) | %s |" % (row[r + "_skill"], row[r + "_skill_std"],
                                   " ".join(row[r + "_verdicts"]))
          for r in ("own", "common", "moved")))


if __name__ == "__main__":
  main()
