"""Grid of attention maps: one row per layer, one column per head, and one
colour bar (every map shares the 0..1 scale)."""

import numpy as np

from bert_research.analysis import plots


def plot_attention_grid(probs, tokens, path, layer_ids=None, head_ids=None,
                        title=None):
  """Writes a PNG grid of attention heatmaps with tokens on the axes.

  Args:
    probs: float array [num_layers, num_heads, S, S] (rows: queries).
    tokens: list of S token strings.
    path: output PNG.
    layer_ids: labels of the rows (default 0..num_layers-1).
    head_ids: labels of the columns (default 0..num_heads-1).
    title: optional figure title.
  """
  probs = np.asarray(probs)
  if probs.ndim != 4 or probs.shape[2:] != (len(tokens), len(tokens)):
    raise ValueError("probs must be [layers, heads, %d, %d], got %s"
                     % (len(tokens), len(tokens), probs.shape))
  n_layers, n_heads, seq = probs.shape[0], probs.shape[1], len(tokens)
  layer_ids = list(range(n_layers)) if layer_ids is None else layer_ids
  head_ids = list(range(n_heads)) if head_ids is None else head_ids
  cell = min(max(1.3, 0.13 * seq), 4.0)
  fontsize = max(3.5, min(8.0, 95.0 / seq))
  fig, axes = plots.new_figure(
      n_layers, n_heads, figsize=(cell * n_heads + 1.8,
                                  cell * n_layers + 0.8), squeeze=False,
      layout="constrained")
  ticks = np.arange(seq)
  for r in range(n_layers):
    for c in range(n_heads):
      ax = axes[r][c]
      image = ax.imshow(probs[r, c], cmap="viridis", vmin=0.0, vmax=1.0,
                        interpolation="nearest")
      ax.set_xticks(ticks)
      ax.set_yticks(ticks)
      ax.set_xticklabels(tokens if r == n_layers - 1 else [],
                         rotation=90, fontsize=fontsize)
      ax.set_yticklabels(tokens if c == 0 else [], fontsize=fontsize)
      ax.tick_params(length=0)
      if r == 0:
        ax.set_title("head %d" % head_ids[c], fontsize=9)
      if c == 0:
        ax.set_ylabel("layer %d" % layer_ids[r], fontsize=9)
  fig.colorbar(image, ax=axes, shrink=min(1.0, 3.0 / n_layers + 0.3),
               label="attention weight (query row -> key column)")
  if title:
    fig.suptitle(title, fontsize=11)
  plots.save_figure(fig, path, dpi=90)
