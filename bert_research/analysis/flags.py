"""Flags of analyze_position_embeddings.py and visualize_attention.py.

    from bert_research.analysis import flags as analysis_flags
    analysis_flags.define_position_flags()    # or define_attention_flags()

(Only absl here: the scripts import the plotting modules in main.)
"""

from absl import flags


def define_position_flags(flag_values=flags.FLAGS):
  """Defines every analyze_position_embeddings.py flag on flag_values."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("init_checkpoint", None,
                      "Checkpoint prefix (e.g. bert_model.ckpt) or directory.",
                      **fv)
  flags.DEFINE_string("output_dir", None, "Where figures and reports go.", **fv)
  flags.DEFINE_string("variable", "bert/embeddings/position_embeddings",
                      "Name of the [positions, hidden] table in the "
                      "checkpoint.",
                      **fv)
  flags.DEFINE_integer("max_positions", 128,
                       "Analyse positions [0, max_positions); 0 = all. The "
                       "default is cut to the table's size; an explicit value "
                       "beyond it is an error.", **fv)
  flags.DEFINE_integer("num_components", 10,
                       "Principal components kept (probe features, curves).",
                       **fv)
  flags.DEFINE_float("initializer_range", 0.02,
                     "Stddev of the initializer, drawn in the histogram.", **fv)
  flags.DEFINE_integer("seed", 12345, "Seed of the probe's split and trees.",
                       **fv)
  flags.DEFINE_bool("probe_include_cls", False,
                    "Include position 0 ([CLS], often an outlier) in "
                    "the probe.",
                    **fv)
  flags.DEFINE_integer("max_pairs", 20000, "Cap on the probe's position pairs.",
                       **fv)


def define_attention_flags(flag_values=flags.FLAGS):
  """Defines every visualize_attention.py flag on `flag_values`."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("bert_config_file", None, "The model's bert_config.json.",
                      **fv)
  flags.DEFINE_string("init_checkpoint", None,
                      "Checkpoint prefix (e.g. bert_model.ckpt) or directory.",
                      **fv)
  flags.DEFINE_string("vocab_file", None, "The model's vocab.txt.", **fv)
  flags.DEFINE_bool("do_lower_case", True,
                    "Lower-case the input (True for uncased models).", **fv)
  flags.DEFINE_string("text_a", None, "The sentence to analyse.", **fv)
  flags.DEFINE_string("text_b", None, "Optional second sentence (a pair).",
                      **fv)
  flags.DEFINE_string("layers", "all",
                      "Layers to draw: 'all' or 0-based indices, e.g. 0,5,-1.",
                      **fv)
  flags.DEFINE_string("heads", "all",
                      "Heads to draw: 'all' or 0-based indices, e.g. 0,3.",
                      **fv)
  flags.DEFINE_integer("max_seq_length", 64,
                       "Inputs longer than this (in word pieces) are "
                       "truncated; the default is cut to the model's "
                       "max_position_embeddings.", **fv)
  flags.DEFINE_string("output_file", None, "Where to write the PNG grid.", **fv)
