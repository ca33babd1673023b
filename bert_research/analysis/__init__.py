"""Look inside a BERT checkpoint: position embeddings and attention maps.

Modules (one concept each):
  checkpoint_io     read a variable from an original-format checkpoint
  position_stats    value statistics, PCA, cosine similarity, outliers
  relative_position the relative-position verdict: the near half's offset
                    cosines transferred to the far half (yes / partial /
                    no / undetermined)
  shift_map         the old interpolation measures and verdict, kept for
                    the record
  position_controls control tables with known answers (the verdict's
                    test suite; python -m ... prints every verdict)
  probe             pos_b - pos_a probe (linear / boosted trees) and its
                    absolute-position control
  extra             the optional dependencies: one-line error when missing
  plots             headless matplotlib, atomic PNG writing
  position_plots    the position-embedding figures
  position_report   the whole position analysis: figures + report.md/json
  report_text       Markdown rendering of the report
  attention         attention probabilities of a sentence (pair)
  attention_plots   grid of attention maps per layer and head
  html_pages        self-contained interactive HTML pages of both tools
  positions_why     packed vs fixed-start pretraining data and the tracking
                    of the position table over checkpoints
  positions_why_synthetic  the controlled "why relative" experiment: a
                    tiny model copying at an offset, arms that differ in
                    where the text sits (or in the task), measures tracked
  toy_training      the tiny BertModel with token heads both synthetic
                    experiments train
  questions         the classic questions measured (docs/questions.md)

Needs the "analysis" extra (matplotlib, scikit-learn). The command lines are
analyze_position_embeddings.py and visualize_attention.py; see
docs/analysis.md.
"""
