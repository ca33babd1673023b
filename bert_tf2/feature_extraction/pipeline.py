"""extract_features.py's work: input lines -> JSON Lines of BERT features.

Example:
  >>> extract_to_file(input_file="in.txt", output_file="out.jsonl",
  ...                 bert_config_file="bert_config.json",
  ...                 init_checkpoint="bert_model.ckpt",
  ...                 vocab_file="vocab.txt")  # doctest: +SKIP
"""

from absl import logging

from bert_tf2 import runner
from bert_tf2.common import atomic_open
from bert_tf2.common import cli
from bert_tf2.common import InputError
from bert_tf2.common import saved_model
from bert_tf2.common import setup_checks
from bert_tf2.feature_extraction import examples as fe_examples
from bert_tf2.feature_extraction import extractor as fe_extractor
from bert_tf2.feature_extraction import output as fe_output

# extract_features.py's --precision values (int8: FeatureEncoder only).
PRECISIONS = ("float32", "bfloat16")


def extract_to_file(input_file, output_file, bert_config_file,
                    init_checkpoint, vocab_file, layers="-1,-2,-3,-4",
                    max_seq_length=128, do_lower_case=True, batch_size=32,
                    use_one_hot_embeddings=False, pooling="none",
                    strategy=None, trim_padding=True, export_dir=None,
                    precision="float32"):
  """Writes one JSON line per input line to `output_file` (atomically).

  Args: as the flags of extract_features.py. With export_dir, also writes
  the same encoder as a raw-string SavedModel (`FeatureEncoder.export`),
  in the same precision.

  Returns:
    int, the number of lines written.

  Raises:
    InputError: a missing/bad file or flag value.
  """
  if precision not in PRECISIONS:
    raise InputError("--precision=%s: expected one of %s" % (
        precision, ", ".join(PRECISIONS)))
  if pooling not in fe_output.POOLING_MODES:
    raise InputError("--pooling=%s: expected one of %s" % (
        pooling, ", ".join(fe_output.POOLING_MODES)))
  cli.require_output_file("output_file", output_file)
  if export_dir:  # Refused before any output is written.
    saved_model.check_export_dir(export_dir)
  if batch_size < 1:
    raise InputError("--batch_size=%d: must be positive" % batch_size)
  if max_seq_length < 3:
    raise InputError("--max_seq_length=%d: needs room for [CLS] and [SEP]"
                     % max_seq_length)
  # As the original extract_features.py: no casing check.
  bert_config, tokenizer = setup_checks.load_config_and_tokenizer(
      bert_config_file, vocab_file, do_lower_case=do_lower_case,
      init_checkpoint=init_checkpoint, max_seq_length=max_seq_length,
      check_casing=False)
  layer_indexes = fe_extractor.parse_layers(layers,
                                            bert_config.num_hidden_layers)
  examples = fe_examples.read_examples(input_file)
  features = fe_examples.convert_examples_to_features(
      examples, max_seq_length, tokenizer)
  for feature in features[:3]:
    logging.info("line %d: %s", feature.unique_id, " ".join(feature.tokens))
  extractor = fe_extractor.FeatureExtractor(
      bert_config, init_checkpoint, layer_indexes,
      use_one_hot_embeddings=use_one_hot_embeddings, strategy=strategy,
      precision=precision)
  count = 0
  with atomic_open(output_file, "w") as writer:
    for feature, outputs in extractor.run(features, batch_size,
                                          trim_padding=trim_padding):
      writer.write(fe_output.format_line(feature, outputs, pooling) + "\n")
      count += 1
  logging.info("Wrote %d lines to %s", count, output_file)
  if export_dir:
    # Start-up: the predictor (bert_tf2.predict, tensorflow_text) loads only
    # for an export.
    from bert_tf2.feature_extraction.predictor import FeatureEncoder  # pylint: disable=g-import-not-at-top
    FeatureEncoder(bert_config_file, init_checkpoint, vocab_file,
                   do_lower_case=do_lower_case, max_seq_length=max_seq_length,
                   layers=layer_indexes, batch_size=batch_size,
                   precision=precision).export(export_dir)
    logging.info("SavedModel written to %s", export_dir)
  return count


def run(f):
  """extract_features.py's `main` of its parsed flags `f` (absl
  FlagValues of `feature_extraction.flags`)."""
  cli.require_file("input_file", f.input_file)
  cli.require_file("vocab_file", f.vocab_file)
  cli.require_file("bert_config_file", f.bert_config_file)
  strategy = None
  if f.use_tpu:
    strategy = runner.strategy_from_flags(
        use_tpu=True, tpu_name=None, tpu_zone=None, gcp_project=None,
        master=f.master, num_tpu_cores=f.num_tpu_cores)
  extract_to_file(
      input_file=f.input_file, output_file=f.output_file,
      bert_config_file=f.bert_config_file,
      init_checkpoint=f.init_checkpoint, vocab_file=f.vocab_file,
      layers=f.layers, max_seq_length=f.max_seq_length,
      do_lower_case=f.do_lower_case, batch_size=f.batch_size,
      use_one_hot_embeddings=f.use_one_hot_embeddings,
      pooling=f.pooling, strategy=strategy,
      trim_padding=f.trim_padding and not f.use_tpu,
      export_dir=f.export_dir, precision=f.precision)
