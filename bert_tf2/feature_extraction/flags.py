"""Flags of extract_features.py (the original's names and defaults, and
--trim_padding, --pooling).

    from bert_tf2.feature_extraction import flags as extract_flags
    extract_flags.define_flags()
"""

from absl import flags


def define_flags(flag_values=flags.FLAGS):
  """Defines every extract_features.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("input_file", None,
                      "Text file, one example per line: 'A' or 'A ||| B'.",
                      **fv)
  flags.DEFINE_string("output_file", None, "Output JSON Lines file.", **fv)
  flags.DEFINE_string("layers", "-1,-2,-3,-4",
                      "Comma-separated encoder layer indexes to output.", **fv)
  flags.DEFINE_string("bert_config_file", None,
                      "bert_config.json of the pre-trained model.", **fv)
  flags.DEFINE_integer("max_seq_length", 128,
                       "Sequence length after WordPiece tokenization; longer "
                       "inputs are truncated.", **fv)
  flags.DEFINE_string("init_checkpoint", None, "The model checkpoint.", **fv)
  flags.DEFINE_string("vocab_file", None, "vocab.txt of the model.", **fv)
  flags.DEFINE_bool("do_lower_case", True,
                    "Lower-case the input (True for uncased models).", **fv)
  flags.DEFINE_integer("batch_size", 32, "Examples per model call.", **fv)
  flags.DEFINE_bool("use_tpu", False, "Run on a TPU.", **fv)
  flags.DEFINE_string("master", None, "TPU master address.", **fv)
  flags.DEFINE_integer("num_tpu_cores", 8, "TPU cores (with --use_tpu).", **fv)
  flags.DEFINE_bool("use_one_hot_embeddings", False,
                    "Look up word embeddings with a one-hot matmul (TPU).",
                    **fv)
  flags.DEFINE_bool("trim_padding", True, "Run each batch at its longest "
                    "sequence (rounded up to a multiple of 16/32/64) instead "
                    "of --max_seq_length: same output, less work. false: the "
                    "original's fixed padding.", **fv)
  flags.DEFINE_enum("pooling", "none", ["none", "cls", "mean"],
                    "none: the original per-token output; cls / mean: one "
                    "sentence vector per layer and line.", **fv)
  flags.DEFINE_enum("precision", "float32", ["float32", "bfloat16"],
                    "float32: the original's numbers. bfloat16: the JSON "
                    "lines and --export_dir's SavedModel computed in Keras "
                    "mixed_bfloat16 (faster on a CPU with AVX512-BF16/AMX; "
                    "values within bfloat16 round-off, docs/performance.md)."
                    " int8: the Python FeatureEncoder(precision=\"int8\").",
                    **fv)
  flags.DEFINE_string("export_dir", None,
                      "Also write the encoder as a SavedModel with raw-string "
                      "signatures (serving_default(text), serving_pair(text_a, "
                      "text_b) -> token_vectors, mean_vectors, cls_vectors for "
                      "--layers); see docs/prediction.md.", **fv)
