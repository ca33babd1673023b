"""Renders the position-embedding report dict as short Markdown."""

from bert_research.analysis import relative_position


def _fmt(x):
  return "%.4g" % x


def probe_table(probes):
  """Markdown table: one row per (split, model) with test MSE and MAE."""
  lines = ["| split | model | test MSE | test MAE | MSE / baseline |",
           "|---|---|---|---|---|"]
  for split, res in sorted(probes.items()):
    base = res["baseline"]["mse"]
    for model in ("baseline", "linear", "gradient_boosting",
                  "difference_of_absolutes"):
      if model not in res:
        continue
      r = res[model]
      ratio = r["mse"] / base if base > 0 else float("nan")
      lines.append("| %s (%d train / %d test pairs) | %s | %s | %s | %s |"
                   % (split, res["num_train"], res["num_test"], model,
                      _fmt(r["mse"]), _fmt(r["mae"]), _fmt(ratio)))
  return "\n".join(lines)


def relative_position_text(rel):
  """Markdown lines: the verdict and a per-offset table of the measures."""
  lines = [
      "Verdict: **%s**." % relative_position.verdict_text(rel),
      "",
      "Far-range transfer: the mean cosine c_k = cos(p[i], p[i+k]) of the "
      "near half (positions before the split at %d) predicts the far "
      "half's cosines; an offset passes when 1 - SSE / min(SSE no move, "
      "SSE offset blind) reaches %g, and the verdict counts the leading "
      "passing offsets. Positions %d.. analysed; graded score %.3f, %d of "
      "%d offsets pass. The old interpolation verdict (held-out blocks "
      "between training positions, for the record): %s." % (
          rel["first_position"] + rel["split_position"],
          rel["thresholds"]["transfer_min"], rel["first_position"],
          rel["mean_map_skill"], len(rel["passing"]), rel["max_offset"],
          rel.get("interpolation_verdict", "not computed")),
      "",
      "| offset | transfer score | near cos | far cos | far cos spread |",
      "|---|---|---|---|---|"]
  for i in range(rel["max_offset"]):
    cells = [rel[key][i] for key in relative_position.PER_OFFSET]
    lines.append("| %d | %s |" % (i + 1, " | ".join(
        "-" if c is None else "%.3f" % c for c in cells)))
  probe = rel.get("probe_vs_absolute")
  if probe:
    lines += ["", "Relative probe against absolute position on the same "
              "features (held-out positions, linear): relative MAE %s, the "
              "difference of two absolute guesses %s (ratio %s; about 1 or "
              "more means the probe reads absolute position and subtracts), "
              "absolute position alone MAE %s." % (
                  _fmt(probe["relative_linear_mae"]),
                  _fmt(probe["difference_of_absolutes_mae"]),
                  "-" if probe["ratio"] is None else _fmt(probe["ratio"]),
                  _fmt(probe["absolute_linear_mae"]))]
  return lines


def markdown_report(report):
  """Returns report.md text for a report dict (see position_report)."""
  s = report["value_stats"]
  src = report.get("source") or {}
  ev = report["explained_variance_ratio"]
  smooth = report["component_smoothness_lag1"]
  parts = [
      "# Position-embedding analysis",
      "",
      "Source: %s, variable `%s` (stored shape %s); analysed positions "
      "0..%d, hidden size %d." % (
          src.get("checkpoint", "array"), src.get("variable", "-"),
          src.get("shape", "-"), report["num_positions"] - 1,
          report["hidden_size"]),
      "",
      "## Values",
      "mean %s, std %s (init std %s), min %s, max %s, excess kurtosis %s, "
      "%.2f%% of values beyond 2 std." % (
          _fmt(s["mean"]), _fmt(s["std"]), _fmt(report["initializer_range"]),
          _fmt(s["min"]), _fmt(s["max"]), _fmt(s["excess_kurtosis"]),
          100 * s["fraction_beyond_2_std"]),
      "Norm of position 0: %s; mean norm of the others: %s." % (
          _fmt(report["norm_position_0"]),
          _fmt(report["mean_norm_other_positions"])),
      "",
      "## PCA",
      "Explained variance of the first %d components: %s (cumulative %s); "
      "%d components above 1%%." % (
          len(ev), ", ".join("%.3f" % r for r in ev),
          _fmt(report["cumulative_explained_variance"]),
          report["components_above_1_percent"]),
      "Without position 0: %s." % ", ".join(
          "%.3f" % r for r in report[
              "explained_variance_ratio_without_position_0"]),
      "Smoothness over position (lag-1 autocorrelation; ~1 smooth, ~0 "
      "noise), PCA without position 0: %s." % (
          ", ".join("%.2f" % v for v in smooth)),
      "Mean cosine similarity of neighbouring positions %s vs all pairs %s."
      % (_fmt(report["mean_cosine_neighbours"]),
         _fmt(report["mean_cosine_all_pairs"])),
      "",
      "## Relative position",
  ] + relative_position_text(report["relative_position"]) + [
      "",
      "## Relative-position probe (confounded by absolute position)",
      "Target pos_b - pos_a from both embeddings projected on the leading "
      "%d components, positions %d..%d, 60/40 split, seed %d." % (
          report["probe_num_components"], report["probe_positions"][0],
          report["probe_positions"][1], report["probe_seed"]),
      "Split 'pairs' shares positions between train and test (a flexible "
      "model can memorise positions); 'positions' holds out whole positions.",
      "",
      probe_table(report["probe"]),
      "",
      "## Figures",
  ]
  parts += ["- `%s`" % name for name in sorted(report["figures"].values())]
  return "\n".join(parts) + "\n"
