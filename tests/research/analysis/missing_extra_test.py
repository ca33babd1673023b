"""Without matplotlib (the analysis extra) the tools end in one line naming
the install command, not a traceback.

The import is blocked in a subprocess by a meta-path finder, so the test
needs no second environment.
"""

import os
import subprocess
import sys

import pytest

from bert_research.analysis import extra

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BLOCK = """
import runpy, sys
class Block:
  def find_spec(self, name, path=None, target=None):
    if name.split(".")[0] in {blocked!r}:
      raise ModuleNotFoundError("No module named %r" % name)
    return None
sys.meta_path.insert(0, Block())
sys.argv = {argv!r}
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_blocked(blocked, script, *flags):
  code = BLOCK.format(blocked=set(blocked),
                      argv=[os.path.join(REPO, script)] + list(flags))
  env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
  return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                        capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("blocked, missing", [
    (["matplotlib"], "matplotlib"),
    (["matplotlib", "sklearn"], "matplotlib, scikit-learn")])
def test_analyze_position_embeddings_without_the_extra(tmp_path, blocked,
                                                       missing):
  proc = run_blocked(blocked, "analyze_position_embeddings.py",
                     "--init_checkpoint=" + str(tmp_path / "x.ckpt"),
                     "--output_dir=" + str(tmp_path / "out"))
  assert proc.returncode == 1
  assert "Traceback" not in proc.stderr
  lines = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
  assert lines == [
      "error: analyze_position_embeddings.py needs matplotlib and "
      "scikit-learn (the analysis extra; missing: %s): %s"
      % (missing, extra.INSTALL)], proc.stderr[-2000:]
  assert not os.path.exists(tmp_path / "out")


def test_visualize_attention_without_matplotlib(tmp_path):
  proc = run_blocked(["matplotlib"], "visualize_attention.py",
                     "--bert_config_file=c.json", "--init_checkpoint=x",
                     "--vocab_file=v.txt", "--text_a=a",
                     "--output_file=" + str(tmp_path / "a.png"))
  assert proc.returncode == 1
  assert "Traceback" not in proc.stderr
  assert ("error: visualize_attention.py needs matplotlib and scikit-learn "
          "(the analysis extra; missing: matplotlib): pip install -e "
          ".[analysis]") in proc.stderr


def test_require_analysis_extra_passes_when_installed():
  extra.require_analysis_extra("x.py")
