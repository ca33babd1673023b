"""Position-embedding analysis end to end: table in, figures and report out.

`load_position_table` reads and validates the table from a checkpoint;
`analyze_position_table` computes the statistics, PCA and probes, writes the
figures (FIGURES) and report.md / report.json into an output directory, and
returns the report as a dict.

Example:
  >>> import numpy as np, tempfile
  >>> table = np.random.RandomState(0).normal(0, 0.02, (32, 16))
  >>> rep = analyze_position_table(table, tempfile.mkdtemp(),
  ...                              num_components=4)  # doctest: +SKIP
  >>> sorted(rep["probe"])  # doctest: +SKIP
  ['pairs', 'positions']
"""

import json
import os

import numpy as np

from bert_research.analysis import html_pages
from bert_research.analysis import position_plots
from bert_research.analysis import position_stats
from bert_research.analysis import probe as probe_lib
from bert_research.analysis import relative_position
from bert_research.analysis import report_text
from tokenization.atomic import atomic_write_text
from tokenization.errors import InputError

FIGURES = {
    "histogram": "value_histogram.png",
    "beyond_2_std": "beyond_2_std_heatmap.png",
    "explained_variance": "pca_explained_variance.png",
    "component_curves": "pca_component_curves.png",
    "pca_scatter": "pca_scatter.png",
    "cosine_similarity": "cosine_similarity.png",
    "relative_position": "relative_position.png",
}
VERDICT_FILE = "position_report.json"
HTML_FILE = "position_report.html"
MIN_POSITIONS = 8


def load_position_table(init_checkpoint, variable, max_positions,
                        clip=False):
  """Reads the [max_positions, hidden] table; InputError on bad input.

  Args:
    init_checkpoint: checkpoint prefix or directory (--init_checkpoint).
    variable: variable name (--variable).
    max_positions: int, keep rows [0, max_positions); 0 keeps all.
    clip: if True, a max_positions beyond the table keeps all rows (for a
      default value); if False it is an error (for an explicit flag).

  Returns:
    (table, full_shape): float32 array [P, hidden_size] and the stored
    shape (tuple).
  """
  from bert_research.analysis import checkpoint_io  # Deferred: imports TensorFlow.
  table = checkpoint_io.read_variable(init_checkpoint, variable)
  # dtype.kind is "V" for bfloat16 (ml_dtypes), which converts fine.
  if table.ndim != 2 or table.dtype.kind in "biuOSU":
    raise InputError("--variable=%s: expected a 2-D float table "
                     "[positions, hidden_size], got %s of shape %s"
                     % (variable, table.dtype, table.shape))
  table = table.astype(np.float32)
  if max_positions < 0:
    raise InputError("--max_positions=%d: must be >= 0 (0 = all)"
                     % max_positions)
  if clip:
    max_positions = min(max_positions, table.shape[0])
  if max_positions > table.shape[0]:
    raise InputError("--max_positions=%d: the checkpoint's %s has only %d "
                     "positions" % (max_positions, variable, table.shape[0]))
  kept = table[:max_positions] if max_positions else table
  if kept.shape[0] < MIN_POSITIONS:
    raise InputError("--max_positions=%d: need at least %d positions"
                     % (kept.shape[0], MIN_POSITIONS))
  if not np.all(np.isfinite(kept)):
    raise InputError("--variable=%s: table has NaN or Inf values" % variable)
  return kept, tuple(table.shape)


def check_num_components(num_components, table):
  """InputError unless 2 <= num_components <= min(P - 1, hidden_size)."""
  limit = min(table.shape[0] - 1, table.shape[1])
  if not 2 <= num_components <= limit:
    raise InputError("--num_components=%d: must be in [2, %d] for %d "
                     "positions x %d dimensions"
                     % (num_components, limit, table.shape[0],
                        table.shape[1]))


def analyze_position_table(table, output_dir, num_components=10,
                           initializer_range=0.02, seed=12345,
                           probe_include_cls=False, max_pairs=20000,
                           source=None):
  """Writes every figure, the reports and the HTML page; returns the report.

  Args:
    table: float [num_positions, hidden_size], row p = position p.
    output_dir: directory (created if missing).
    num_components: PCA components kept (probe features, curves).
    initializer_range: stddev of the initializer, for the histogram.
    seed: fixes the probe's pair sampling, split and trees.
    probe_include_cls: if False, the probe and the second curve panel use
      positions 1.. only (position 0, always [CLS], is often an outlier).
    max_pairs: cap on probe pairs.
    source: optional dict (checkpoint, variable, shape) for the report.

  Returns:
    The report dict (as in report.json).
  """
  table = np.asarray(table, dtype=np.float64)
  check_num_components(num_components, table)
  os.makedirs(output_dir, exist_ok=True)
  out = {k: os.path.join(output_dir, v) for k, v in FIGURES.items()}

  stats = position_stats.value_stats(table)
  ratios = position_stats.full_explained_variance_ratio(table)
  ratios_no_cls = position_stats.full_explained_variance_ratio(table[1:])
  pca = position_stats.principal_components(table, num_components)
  pca_no_cls = position_stats.principal_components(table[1:], num_components)
  norms = np.linalg.norm(table, axis=1)
  sim = position_stats.cosine_similarity_matrix(table)
  off_diag = sim[~np.eye(sim.shape[0], dtype=bool)]

  first = 0 if probe_include_cls else 1
  probe_pca = pca if probe_include_cls else pca_no_cls
  positions = np.arange(first, table.shape[0])
  probes = {
      split: probe_lib.relative_position_probe(
          probe_pca.projections, split=split, seed=seed, max_pairs=max_pairs,
          positions=positions)
      for split in probe_lib.SPLITS}

  rel = relative_position.relative_position_verdict(table, first=first)
  rel["probe_vs_absolute"] = probe_vs_absolute(probes["positions"])

  position_plots.plot_value_histogram(table, out["histogram"],
                                      initializer_range)
  position_plots.plot_beyond_sigma_heatmap(table, out["beyond_2_std"])
  position_plots.plot_explained_variance(
      ratios, ratios_no_cls, out["explained_variance"],
      first_share_of_position_0=position_0_share(pca.projections))
  position_plots.plot_component_curves(pca.projections,
                                       pca_no_cls.projections,
                                       out["component_curves"])
  position_plots.plot_pca_scatter(pca.projections[:, :2],
                                  pca_no_cls.projections[:, :2],
                                  out["pca_scatter"])
  position_plots.plot_cosine_similarity(sim, out["cosine_similarity"])
  position_plots.plot_relative_position(rel, out["relative_position"])

  report = {
      "source": dict(source or {}),
      "num_positions": int(table.shape[0]),
      "hidden_size": int(table.shape[1]),
      "value_stats": stats,
      "initializer_range": initializer_range,
      "explained_variance_ratio": [float(r) for r in ratios[:num_components]],
      "explained_variance_ratio_without_position_0": [
          float(r) for r in ratios_no_cls[:num_components]],
      "components_above_1_percent": int(np.sum(ratios > 0.01)),
      "cumulative_explained_variance": float(ratios[:num_components].sum()),
      "component_smoothness_lag1": [
          float(v) for v in position_stats.lag1_autocorrelation(
              pca_no_cls.projections)],
      "norm_position_0": float(norms[0]),
      "mean_norm_other_positions": float(norms[1:].mean()),
      "mean_cosine_neighbours": float(np.mean(np.diag(sim, 1))),
      "mean_cosine_all_pairs": float(off_diag.mean()),
      "probe_positions": [int(positions[0]), int(positions[-1])],
      "probe_num_components": int(num_components),
      "probe_seed": int(seed),
      "probe": probes,
      "pc1_variance_share_of_position_0": position_0_share(pca.projections),
      "relative_position": rel,
      "figures": dict(FIGURES),
  }
  atomic_write_text(os.path.join(output_dir, "report.json"),
                    json.dumps(report, indent=2, sort_keys=True) + "\n")
  atomic_write_text(os.path.join(output_dir, VERDICT_FILE),
                    json.dumps({"relative_position": rel}, indent=2,
                               sort_keys=True) + "\n")
  atomic_write_text(os.path.join(output_dir, "report.md"),
                    report_text.markdown_report(report))
  html_pages.write_page(os.path.join(output_dir, HTML_FILE),
                        html_pages.position_page(report, out))
  return report


def position_0_share(projections):
  """Share of the first component's variance that position 0 carries.

  Args:
    projections: float [P, k], PCA of all positions (row 0 = position 0).

  Returns:
    float in [0, 1]: near 1 when PC1 is just the [CLS] row.
  """
  first = np.asarray(projections, dtype=np.float64)[:, 0]
  total = float(np.sum(first ** 2))
  return float(first[0] ** 2 / total) if total > 0 else 0.0


def probe_vs_absolute(positions_probe):
  """Relative probe against the difference of absolute guesses (MAE).

  Args:
    positions_probe: the "positions" split result of
      probe.relative_position_probe.

  Returns:
    dict: relative_linear_mae, difference_of_absolutes_mae,
    absolute_linear_mae, and ratio = relative / difference (about 1 or
    more: the probe reads absolute position and subtracts).
  """
  rel = positions_probe["linear"]["mae"]
  diff = positions_probe["difference_of_absolutes"]["mae"]
  return {"relative_linear_mae": rel, "difference_of_absolutes_mae": diff,
          "absolute_linear_mae": positions_probe["absolute_linear"]["mae"],
          "ratio": rel / diff if diff > 0 else None}
