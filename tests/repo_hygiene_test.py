"""The repository tracks nothing that breaks a fresh clone.

Two kinds of tracked path are refused:
  * a symbolic link whose target is absolute or resolves outside the
    repository (a clone elsewhere gets a dangling link: a tracked `.venv`
    link once made ./quickstart.sh and ./run_tests.sh fail at once with
    "[Errno 17] File exists: '.venv'");
  * a path that .gitignore ignores (a generated artifact or a local
    environment committed by mistake).
"""

import os
import shutil
import subprocess

import pytest

from tests.golden import REPO_ROOT

SYMLINK_MODE = "120000"


def _git(repo, *args):
  return subprocess.run(["git", "-C", repo] + list(args), check=True,
                        capture_output=True).stdout


def hygiene_problems(repo):
  """One line per offending tracked path of the git repository `repo`.

  Args:
    repo: path of a git work tree.

  Returns:
    list of str, empty when the repository is clean.
  """
  problems = []
  root = os.path.realpath(repo)
  # -z: NUL-separated, paths unquoted. Each entry: "mode sha stage\tpath".
  for entry in _git(repo, "ls-files", "-s", "-z").split(b"\0"):
    if not entry:
      continue
    meta, path = entry.split(b"\t", 1)
    mode, sha = meta.split(b" ")[:2]
    if mode.decode() != SYMLINK_MODE:
      continue
    path = path.decode("utf-8", "replace")
    target = _git(repo, "cat-file", "blob", sha.decode()).decode(
        "utf-8", "replace")
    resolved = os.path.normpath(os.path.join(root, os.path.dirname(path),
                                             target))
    if os.path.isabs(target):
      problems.append("%s: tracked symbolic link to an absolute path (%s)" %
                      (path, target))
    elif os.path.commonpath([root, resolved]) != root:
      problems.append("%s: tracked symbolic link pointing outside the "
                      "repository (%s)" % (path, target))
  ignored = _git(repo, "ls-files", "-z", "--cached", "--ignored",
                 "--exclude-standard")
  for path in ignored.split(b"\0"):
    if path:
      problems.append("%s: tracked although .gitignore ignores it" %
                      path.decode("utf-8", "replace"))
  return problems


def test_this_repository_is_clean():
  assert hygiene_problems(REPO_ROOT) == []


@pytest.fixture(name="scratch_repo")
def _scratch_repo(tmp_path):
  """A new git repository holding this project's .gitignore and one file."""
  repo = str(tmp_path / "repo")
  os.makedirs(os.path.join(repo, "docs"))
  shutil.copy(os.path.join(REPO_ROOT, ".gitignore"), repo)
  with open(os.path.join(repo, "README.md"), "w") as f:
    f.write("hello\n")
  _git(repo, "init", "-q")
  _git(repo, "add", ".gitignore", "README.md")
  return repo


def _commit(repo, *paths):
  _git(repo, "add", "-f", *paths)
  _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c",
       "commit.gpgsign=false", "commit", "-q",
       "-m", "add " + " ".join(paths))


def test_clean_scratch_repository_passes(scratch_repo):
  os.symlink("README.md", os.path.join(scratch_repo, "docs", "link"))
  os.symlink("../README.md", os.path.join(scratch_repo, "docs", "up"))
  _commit(scratch_repo, "docs/link", "docs/up")
  # docs/link dangles (docs/README.md does not exist) but stays inside.
  assert hygiene_problems(scratch_repo) == []


def test_readded_venv_link_is_caught(scratch_repo):
  # What once broke a fresh clone: .venv committed as a link to a venv on
  # the author's machine. `git add -f` gets past .gitignore, as a careless
  # `git add -A` before .venv was ignored did.
  os.symlink("/nonexistent/venv", os.path.join(scratch_repo, ".venv"))
  _commit(scratch_repo, ".venv")
  problems = hygiene_problems(scratch_repo)
  assert problems == [
      ".venv: tracked symbolic link to an absolute path (/nonexistent/venv)",
      ".venv: tracked although .gitignore ignores it"]


def test_relative_link_escaping_the_repository_is_caught(scratch_repo):
  os.symlink("../../outside/data", os.path.join(scratch_repo, "docs",
                                                "data"))
  _commit(scratch_repo, "docs/data")
  assert hygiene_problems(scratch_repo) == [
      "docs/data: tracked symbolic link pointing outside the repository "
      "(../../outside/data)"]


def test_tracked_ignored_artifact_is_caught(scratch_repo):
  os.makedirs(os.path.join(scratch_repo, "docs", "run"))
  with open(os.path.join(scratch_repo, "docs", "run", "model.ckpt-10.index"),
            "w") as f:
    f.write("x")
  _commit(scratch_repo, "docs/run/model.ckpt-10.index")
  assert hygiene_problems(scratch_repo) == [
      "docs/run/model.ckpt-10.index: tracked although .gitignore ignores it"]
