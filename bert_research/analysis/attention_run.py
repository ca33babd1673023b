"""visualize_attention end to end: checkpoint + text in, PNG grid and an
interactive HTML page (every layer and head chosen) out.

  visualize(bert_config_file="bert_config.json",
            init_checkpoint="bert_model.ckpt", vocab_file="vocab.txt",
            text_a="The cat sat on the mat.", text_b="It purred.",
            output_file="/tmp/attention.png", layers="0,-1")
"""

import os

import numpy as np

from bert_research.analysis import attention
from bert_research.analysis import attention_plots
from bert_research.analysis import html_pages
from bert_tf2.common import cli
from tokenization.errors import InputError

DEFAULT_MAX_SEQ_LENGTH = 64


def load_bert(bert_config_file, init_checkpoint):
  """Builds a BertModel from bert_config.json and loads every weight.

  Returns:
    (model, config).

  Raises:
    InputError: bad config or checkpoint, or a checkpoint lacking some of
      the encoder's variables (attention of random weights means nothing).
  """
  import modeling  # pylint: disable=g-import-not-at-top
  cli.require_file("bert_config_file", bert_config_file)
  config = modeling.BertConfig.from_json_file(bert_config_file)
  modeling.check_config_matches_checkpoint(config, init_checkpoint,
                                           config_file=bert_config_file)
  model = modeling.BertModel(config)
  ids = np.zeros((1, 2), np.int32)
  model({"input_ids": ids, "input_mask": np.ones_like(ids),
         "token_type_ids": ids}, training=False)
  report = modeling.init_from_checkpoint(model, init_checkpoint)
  if report.not_loaded:
    raise InputError(
        "--init_checkpoint=%s: %d of the model's variables are not in the "
        "checkpoint (e.g. %s); does --bert_config_file match it?"
        % (init_checkpoint, len(report.not_loaded),
           ", ".join(sorted(report.not_loaded)[:3])))
  return model, config


def visualize(bert_config_file, init_checkpoint, vocab_file, text_a,
              output_file, text_b=None, do_lower_case=True, layers="all",
              heads="all", max_seq_length=None):
  """Writes the attention grid of the chosen layers and heads.

  Args:
    bert_config_file, init_checkpoint, vocab_file: the model's files.
    text_a: str; text_b: optional str (a sentence pair).
    output_file: PNG path; the HTML page goes to html_path(output_file).
    do_lower_case: as for the checkpoint (checked against its name).
    layers, heads: "all" or comma-separated 0-based indices ("-1" = last).
    max_seq_length: int, longer inputs are truncated; None means
      min(DEFAULT_MAX_SEQ_LENGTH, the model's max_position_embeddings).

  Returns:
    (tokens, probs): list of S str, float32 [len(layers), len(heads), S, S].
  """
  import tokenization  # pylint: disable=g-import-not-at-top
  if not text_a or not text_a.strip():
    raise InputError("--text_a is required and must not be empty")
  if not output_file:
    raise InputError("--output_file is required")
  if output_file.lower().endswith((".html", ".htm")):
    raise InputError("--output_file=%s: the PNG grid's path; the HTML page "
                     "is written next to it (%s)"
                     % (output_file, html_path(output_file)))
  cli.require_output_file("output_file", output_file)
  cli.require_output_file("output_file", html_path(output_file))
  cli.require_file("vocab_file", vocab_file)
  tokenization.validate_case_matches_checkpoint(do_lower_case,
                                                init_checkpoint)
  model, config = load_bert(bert_config_file, init_checkpoint)
  if max_seq_length is None:
    max_seq_length = min(DEFAULT_MAX_SEQ_LENGTH,
                         config.max_position_embeddings)
  if max_seq_length > config.max_position_embeddings:
    raise InputError("--max_seq_length=%d: the model has only %d positions"
                     % (max_seq_length, config.max_position_embeddings))
  layer_ids = attention.parse_index_list("layers", layers,
                                         config.num_hidden_layers)
  head_ids = attention.parse_index_list("heads", heads,
                                        config.num_attention_heads)
  tokenizer = tokenization.FullTokenizer(vocab_file=vocab_file,
                                         do_lower_case=do_lower_case)
  tokens, ids, types = attention.encode_text(tokenizer, text_a, text_b,
                                             max_seq_length)
  probs = attention.attention_maps(model, ids, types)
  probs = probs[layer_ids][:, head_ids]
  attention_plots.plot_attention_grid(probs, tokens, output_file,
                                      layer_ids=layer_ids, head_ids=head_ids)
  html_pages.write_page(html_path(output_file), html_pages.attention_page(
      tokens, probs, layer_ids=layer_ids, head_ids=head_ids,
      title="Attention of %s" % init_checkpoint))
  return tokens, probs


def html_path(output_file):
  """The HTML page written next to the PNG: attention.png -> attention.html.

  >>> html_path("/tmp/attention.png"), html_path("grid")
  ('/tmp/attention.html', 'grid.html')
  """
  return os.path.splitext(output_file)[0] + ".html"
