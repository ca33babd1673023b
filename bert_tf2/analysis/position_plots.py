"""The figures of the position-embedding analysis, one function each.

Each function takes arrays (see `position_stats`) and an output path and
writes one PNG via `plots.save_figure`. Positions are row indices of the
table unless `positions` says otherwise.
"""

import numpy as np

from bert_tf2.analysis import plots
from bert_tf2.analysis import position_stats


def plot_value_histogram(table, path, initializer_range=0.02):
  """Histogram of all values against the initialisation densities.

  Args:
    table: float [num_positions, hidden_size].
    path: output PNG.
    initializer_range: stddev of BERT's truncated-normal initializer.
  """
  values = np.asarray(table, dtype=np.float64).ravel()
  fig, ax = plots.new_figure()
  lo, hi = np.percentile(values, [0.05, 99.95])
  lim = max(abs(lo), abs(hi), 3 * initializer_range)
  ax.hist(values, bins=120, range=(-lim, lim), density=True, alpha=0.6,
          color="tab:blue", label="trained values")
  x = np.linspace(-lim, lim, 400)
  ax.plot(x, position_stats.normal_pdf(x, initializer_range), "k-",
          label="N(0, %g) init" % initializer_range)
  ax.plot(x, position_stats.truncated_normal_pdf(x, initializer_range),
          "r--", lw=1, label="truncated at 2 std (BERT's initializer)")
  ax.set_xlabel("value")
  ax.set_ylabel("density")
  ax.set_title("Position-embedding values (std %.4f)" % values.std())
  ax.legend(fontsize=8)
  plots.save_figure(fig, path)


def plot_beyond_sigma_heatmap(table, path, num_sigma=2.0):
  """Heatmap (position x dimension) of values beyond `num_sigma` std."""
  table = np.asarray(table, dtype=np.float64)
  mask = position_stats.beyond_sigma_mask(table, num_sigma)
  shown = np.where(mask, table - table.mean(), 0.0)
  # Colour limit at the 99th percentile of the marked magnitudes, so one
  # huge outlier (e.g. at position 0) does not wash out the rest.
  marked = np.abs(shown[mask])
  lim = float(np.percentile(marked, 99)) if marked.size else 1.0
  fig, ax = plots.new_figure(figsize=(7.0, 4.5))
  im = ax.imshow(shown, aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                 interpolation="nearest")
  fig.colorbar(im, ax=ax, extend="both",
               label="value - mean (0 where within)")
  ax.set_xlabel("hidden dimension")
  ax.set_ylabel("position")
  ax.set_title("Values beyond %g std (%.1f%% of all)"
               % (num_sigma, 100.0 * mask.mean()))
  plots.save_figure(fig, path)


def plot_explained_variance(ratios, path, threshold=0.01):
  """Bar chart of the explained-variance ratios above `threshold`.

  Args:
    ratios: float [n], descending (e.g. full_explained_variance_ratio).
  """
  ratios = np.asarray(ratios, dtype=np.float64)
  shown = ratios[ratios > threshold]
  if shown.size == 0:
    shown = ratios[:1]
  fig, ax = plots.new_figure()
  idx = np.arange(1, shown.size + 1)
  ax.bar(idx, shown, color="tab:blue", label="per component")
  ax.plot(idx, np.cumsum(shown), "k.-", label="cumulative")
  ax.set_xlabel("principal component")
  ax.set_ylabel("explained variance ratio")
  ax.set_title("PCA of positions: %d components above %g%% (%.1f%% total)"
               % (shown.size, 100 * threshold, 100 * shown.sum()))
  ax.set_ylim(0, 1.02)
  ax.legend(fontsize=8)
  plots.save_figure(fig, path)


def plot_component_curves(projections, projections_no_cls, path,
                          num_curves=4):
  """Leading principal components as curves over position.

  Args:
    projections: float [num_positions, k], PCA of all positions.
    projections_no_cls: float [num_positions - 1, k'], PCA fitted without
      position 0 ([CLS]), rows are positions 1.. .
    path: output PNG.
    num_curves: how many leading components to draw.
  """
  fig, axes = plots.new_figure(1, 2, figsize=(11.0, 4.0))
  panels = [(axes[0], projections, 0, "with position 0 ([CLS])"),
            (axes[1], projections_no_cls, 1, "without position 0")]
  for ax, proj, first, title in panels:
    proj = np.asarray(proj)
    pos = np.arange(first, first + proj.shape[0])
    for k in range(min(num_curves, proj.shape[1])):
      ax.plot(pos, proj[:, k], lw=1.2, label="PC%d" % (k + 1))
    ax.set_xlabel("position")
    ax.set_ylabel("projection")
    ax.set_title("Leading components, " + title)
    ax.legend(fontsize=8)
  plots.save_figure(fig, path)


def plot_pca_scatter(projections, path, positions=None):
  """2-D scatter of the first two projections, coloured by position."""
  proj = np.asarray(projections)
  pos = np.arange(proj.shape[0]) if positions is None else positions
  fig, ax = plots.new_figure(figsize=(5.6, 4.6))
  ax.plot(proj[:, 0], proj[:, 1], "-", color="0.8", lw=0.6, zorder=1)
  sc = ax.scatter(proj[:, 0], proj[:, 1], c=pos, cmap="viridis", s=14,
                  zorder=2)
  fig.colorbar(sc, ax=ax, label="position")
  ax.set_xlabel("PC1")
  ax.set_ylabel("PC2")
  ax.set_title("Positions on the first two components")
  plots.save_figure(fig, path)


def plot_cosine_similarity(similarity, path):
  """Heatmap of the [num_positions, num_positions] cosine similarities."""
  sim = np.asarray(similarity)
  fig, ax = plots.new_figure(figsize=(5.6, 4.6))
  im = ax.imshow(sim, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
  fig.colorbar(im, ax=ax, label="cosine similarity")
  ax.set_xlabel("position")
  ax.set_ylabel("position")
  ax.set_title("Cosine similarity between positions")
  plots.save_figure(fig, path)
