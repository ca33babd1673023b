"""The figures of the position-embedding analysis, one function each.

Each function takes arrays (see `position_stats`) and an output path and
writes one PNG via `plots.save_figure`. Positions are row indices of the
table unless `positions` says otherwise.
"""

import numpy as np

from bert_research.analysis import plots
from bert_research.analysis import position_stats


def plot_value_histogram(table, path, initializer_range=0.02,
                         core_stds=6.0):
  """Histogram of all values against the initialisation densities.

  Left: the core, x clipped to +-core_stds initializer stds, linear y; the
  title says how many values lie outside. Right: every value (no
  clipping), log y, so the tails and outliers the training grew beyond
  the initializer's +-2 std support stay visible.

  Args:
    table: float [num_positions, hidden_size].
    path: output PNG.
    initializer_range: stddev of BERT's truncated-normal initializer.
    core_stds: half-width of the left panel, in initializer stds.
  """
  values = np.asarray(table, dtype=np.float64).ravel()
  fig, (core, full) = plots.new_figure(1, 2, figsize=(11.0, 4.0))
  lim = core_stds * initializer_range
  outside = int(np.sum(np.abs(values) > lim))
  full_lim = max(float(np.max(np.abs(values))), lim) * 1.02
  for ax, edge, log in ((core, lim, False), (full, full_lim, True)):
    ax.hist(values, bins=120 if not log else 300, range=(-edge, edge),
            density=True, alpha=0.6, color="tab:blue", label="trained values",
            log=log)
    x = np.linspace(-edge, edge, 2001)
    normal = position_stats.normal_pdf(x, initializer_range)
    truncated = position_stats.truncated_normal_pdf(x, initializer_range)
    if log:  # Zero densities have no place on a log axis.
      normal = np.where(normal > 0, normal, np.nan)
      truncated = np.where(truncated > 0, truncated, np.nan)
    ax.plot(x, normal, "k-", lw=1, label="N(0, %g)" % initializer_range)
    ax.plot(x, truncated, "r--", lw=1,
            label="truncated at 2 std (BERT's initializer)")
    ax.set_xlabel("value")
    ax.set_ylabel("density" + (" (log)" if log else ""))
  core.set_title("Values, x clipped to +-%.3g: %d of %d outside (%.2f%%)"
                 % (lim, outside, values.size, 100.0 * outside / values.size),
                 fontsize=9)
  full.set_title("All values, log density: min %.3g, max %.3g, std %.4f"
                 % (values.min(), values.max(), values.std()), fontsize=9)
  peak = max(float(np.max(position_stats.truncated_normal_pdf(
      0.0, initializer_range))), 1.0 / (values.std() + 1e-12))
  full.set_ylim(0.5 / (values.size * 2 * full_lim / 300), 5 * peak)
  core.legend(fontsize=7)
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


def plot_explained_variance(ratios, ratios_no_cls, path,
                            first_share_of_position_0=None, threshold=0.01):
  """Explained-variance ratios above `threshold`, with and without pos. 0.

  Args:
    ratios: float [n], descending, PCA of all positions.
    ratios_no_cls: float [n'], PCA without position 0 ([CLS]).
    path: output PNG.
    first_share_of_position_0: float, share of PC1's variance carried by
      position 0 (position_report.position_0_share); named in the title.
    threshold: components at or below it are not drawn.
  """
  fig, axes = plots.new_figure(1, 2, figsize=(11.0, 4.0))
  for ax, r, which in ((axes[0], ratios, "PCA of all positions"),
                       (axes[1], ratios_no_cls, "PCA without position 0")):
    r = np.asarray(r, dtype=np.float64)
    shown = r[r > threshold]
    if shown.size == 0:
      shown = r[:1]
    idx = np.arange(1, shown.size + 1)
    ax.bar(idx, shown, color="tab:blue", label="per component")
    ax.plot(idx, np.cumsum(shown), "k.-", label="cumulative")
    ax.set_xlabel("principal component")
    ax.set_ylabel("explained variance ratio")
    title = "%s: PC1 %.1f%%" % (which, 100 * shown[0])
    if ax is axes[0] and first_share_of_position_0 is not None:
      title += (", %.0f%% of it from position 0%s" % (
          100 * first_share_of_position_0,
          " ([CLS] row)" if first_share_of_position_0 > 0.5 else ""))
    ax.set_title(title + "\n%d components above %g%% (%.1f%% total)"
                 % (shown.size, 100 * threshold, 100 * shown.sum()),
                 fontsize=9)
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


def plot_pca_scatter(projections, projections_no_cls, path):
  """First two components coloured by position: PCA of all positions
  (left) and PCA fitted without position 0 (right, positions 1..).

  Args:
    projections: float [P, >=2]; projections_no_cls: float [P - 1, >=2].
  """
  fig, axes = plots.new_figure(1, 2, figsize=(11.0, 4.6))
  for ax, proj, first, which in (
      (axes[0], projections, 0, "PCA with position 0 ([CLS])"),
      (axes[1], projections_no_cls, 1, "PCA without position 0")):
    proj = np.asarray(proj)
    pos = np.arange(first, first + proj.shape[0])
    ax.plot(proj[:, 0], proj[:, 1], "-", color="0.8", lw=0.6, zorder=1)
    sc = ax.scatter(proj[:, 0], proj[:, 1], c=pos, cmap="viridis", s=14,
                    zorder=2)
    fig.colorbar(sc, ax=ax, label="position")
    ax.set_xlabel("PC1")
    ax.set_ylabel("PC2")
    ax.set_title("Positions %d..%d, %s" % (pos[0], pos[-1], which),
                 fontsize=9)
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


def plot_relative_position(rel, path):
  """The far-range transfer per offset, its threshold and the verdict.

  Left: the transfer score per offset (clipped below at -1; both axes
  linear). Right: the near half's mean cosine c_k against the far half's
  mean and spread, the numbers the score compares.

  Args:
    rel: dict from relative_position.relative_position_verdict.
    path: output PNG.
  """
  from bert_research.analysis import relative_position  # pylint: disable=g-import-not-at-top
  k = np.arange(1, rel["max_offset"] + 1)
  as_float = lambda v: np.array([np.nan if x is None else x for x in v])
  fig, (left, right) = plots.new_figure(1, 2, figsize=(11.0, 4.0))
  score = np.maximum(as_float(rel["transfer_score"]), -1.0)
  left.plot(k, score, "o-", ms=3, label="transfer score (below -1 shown as -1)")
  left.axhline(rel["thresholds"]["transfer_min"], color="r", ls="--", lw=1,
               label="threshold")
  left.set_ylim(-1.05, 1.05)
  left.set_xlabel("offset k")
  left.set_ylabel("1 - SSE / min(no move, offset blind)")
  left.set_title("Near half's c_k predicting the far half's cosines",
                 fontsize=9)
  far, spread = as_float(rel["far_cosine"]), as_float(rel["far_cosine_spread"])
  right.plot(k, as_float(rel["near_cosine"]), "o-", ms=3,
             label="near half: c_k")
  right.plot(k, far, "s:", ms=3, color="tab:orange",
             label="far half: mean (band: +- 1 sd)")
  right.fill_between(k, far - spread, far + spread, color="tab:orange",
                     alpha=0.2, lw=0)
  right.set_xlabel("offset k")
  right.set_ylabel("cos(p[i], p[i+k])")
  right.set_title("Split at position %d" % (rel["first_position"]
                                            + rel["split_position"]),
                  fontsize=9)
  for ax in (left, right):
    for i, offset in enumerate(rel["passing"]):
      ax.axvspan(offset - 0.5, offset + 0.5, color="tab:green", alpha=0.1,
                 lw=0, label=None if i else "passing offsets")
    ax.legend(fontsize=8)
  fig.suptitle("Relative position: " + relative_position.verdict_text(rel),
               fontsize=11)
  plots.save_figure(fig, path)
