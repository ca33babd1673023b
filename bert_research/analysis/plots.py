"""Figure plumbing: headless matplotlib and atomic PNG writing.

Every figure of the analysis tools goes through `save_figure`, which renders
with the non-interactive Agg backend (no display needed) and writes the PNG
atomically (a reader never sees a half-written file).

Example:
  >>> import os, tempfile
  >>> fig, ax = new_figure()
  >>> _ = ax.plot([0, 1], [1, 0])
  >>> out = os.path.join(tempfile.mkdtemp(), "line.png")
  >>> save_figure(fig, out)
  >>> is_png(out)
  True
"""

import matplotlib

matplotlib.use("Agg")  # Headless: must precede the pyplot import.
import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top

from tokenization.atomic import atomic_path  # pylint: disable=g-import-not-at-top

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def new_figure(nrows=1, ncols=1, figsize=(6.4, 4.0), **kwargs):
  """Returns (figure, axes) like `plt.subplots`, on the Agg backend."""
  return plt.subplots(nrows, ncols, figsize=figsize, **kwargs)


def save_figure(fig, path, dpi=100):
  """Writes `fig` as a PNG to `path` atomically and closes it."""
  try:
    with atomic_path(path) as tmp:
      fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight")
  finally:
    plt.close(fig)


def is_png(path):
  """True if `path` is a non-empty file starting with the PNG signature."""
  try:
    with open(path, "rb") as f:
      return f.read(len(PNG_SIGNATURE)) == PNG_SIGNATURE
  except OSError:
    return False
