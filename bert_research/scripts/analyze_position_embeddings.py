# coding=utf-8
"""Analyses the position embeddings of an original-format BERT checkpoint.

Writes PNG figures (value histogram vs the initialisation, values beyond
2 std, PCA explained variance, leading components over position, 2-D PCA
scatter, cosine similarity, relative-position measures),
position_report.json (the relative-position verdict), report.md /
report.json (statistics, the verdict, the probe) and position_report.html
(the figures and the verdict in one self-contained page) into --output_dir.

  python analyze_position_embeddings.py \\
    --init_checkpoint=$BERT_DIR/bert_model.ckpt --output_dir=/tmp/pos
"""

from absl import flags

from bert_tf2.common import cli
from bert_research.analysis import extra
from bert_research.analysis import flags as analysis_flags
from tokenization.errors import InputError
from tokenization import flags as tokenization_flags

FLAGS = flags.FLAGS

analysis_flags.define_position_flags()


def main(_):
  extra.require_analysis_extra("analyze_position_embeddings.py")
  tokenization_flags.refuse_preserve_unused_tokens("analyze_position_embeddings.py")
  from bert_research.analysis import position_report  # pylint: disable=g-import-not-at-top
  from bert_research.analysis import relative_position  # pylint: disable=g-import-not-at-top
  if not FLAGS.output_dir:
    raise InputError("--output_dir is required")
  table, shape = position_report.load_position_table(
      FLAGS.init_checkpoint, FLAGS.variable, FLAGS.max_positions,
      clip=not FLAGS["max_positions"].present)
  if FLAGS.max_pairs < 100:
    raise InputError("--max_pairs=%d: must be >= 100" % FLAGS.max_pairs)
  report = position_report.analyze_position_table(
      table, FLAGS.output_dir, num_components=FLAGS.num_components,
      initializer_range=FLAGS.initializer_range, seed=FLAGS.seed,
      probe_include_cls=FLAGS.probe_include_cls, max_pairs=FLAGS.max_pairs,
      source={"checkpoint": FLAGS.init_checkpoint,
              "variable": FLAGS.variable, "shape": list(shape)})
  print("relative position: %s" % relative_position.verdict_text(
      report["relative_position"]))
  print("wrote %d figures, %s, %s and report.md/report.json to %s"
        % (len(report["figures"]), position_report.VERDICT_FILE,
           position_report.HTML_FILE, FLAGS.output_dir))


def run():
  """Console entry point: `bert-analyze-position-embeddings ...`, the same flags as `python analyze_position_embeddings.py ...`."""
  flags.mark_flag_as_required("init_checkpoint")
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
