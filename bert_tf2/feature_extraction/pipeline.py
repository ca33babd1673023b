"""extract_features.py's work: input lines -> JSON Lines of BERT features.

Example:
  >>> extract_to_file(input_file="in.txt", output_file="out.jsonl",
  ...                 bert_config_file="bert_config.json",
  ...                 init_checkpoint="bert_model.ckpt",
  ...                 vocab_file="vocab.txt")  # doctest: +SKIP
"""

from absl import logging

from bert_tf2.common import atomic_open
from bert_tf2.common import InputError
from bert_tf2.feature_extraction import examples as fe_examples
from bert_tf2.feature_extraction import extractor as fe_extractor
from bert_tf2.feature_extraction import output as fe_output
import modeling
import tokenization


def extract_to_file(input_file, output_file, bert_config_file,
                    init_checkpoint, vocab_file, layers="-1,-2,-3,-4",
                    max_seq_length=128, do_lower_case=True, batch_size=32,
                    use_one_hot_embeddings=False, pooling="none",
                    strategy=None, trim_padding=True):
  """Writes one JSON line per input line to `output_file` (atomically).

  Args: as the flags of extract_features.py.

  Returns:
    int, the number of lines written.

  Raises:
    InputError: a missing/bad file or flag value.
  """
  if pooling not in fe_output.POOLING_MODES:
    raise InputError("--pooling=%s: expected one of %s" % (
        pooling, ", ".join(fe_output.POOLING_MODES)))
  if batch_size < 1:
    raise InputError("--batch_size=%d: must be positive" % batch_size)
  if max_seq_length < 3:
    raise InputError("--max_seq_length=%d: needs room for [CLS] and [SEP]"
                     % max_seq_length)
  bert_config = modeling.BertConfig.from_json_file(bert_config_file)
  modeling.check_sequence_length(bert_config, max_seq_length)
  layer_indexes = fe_extractor.parse_layers(layers,
                                            bert_config.num_hidden_layers)
  tokenizer = tokenization.FullTokenizer(vocab_file=vocab_file,
                                         do_lower_case=do_lower_case)
  if len(tokenizer.vocab) > bert_config.vocab_size:
    # Ids beyond the embedding table would fail deep inside TensorFlow (or
    # read zeros on accelerators): this vocabulary is not the model's.
    raise InputError(
        "--vocab_file=%s has %d tokens but --bert_config_file=%s has "
        "vocab_size=%d: the vocabulary does not belong to this model"
        % (vocab_file, len(tokenizer.vocab), bert_config_file,
           bert_config.vocab_size))
  for token in ("[CLS]", "[SEP]"):
    if token not in tokenizer.vocab:
      raise InputError("--vocab_file=%s: has no %s token" % (vocab_file,
                                                             token))
  examples = fe_examples.read_examples(input_file)
  features = fe_examples.convert_examples_to_features(
      examples, max_seq_length, tokenizer)
  for feature in features[:3]:
    logging.info("line %d: %s", feature.unique_id, " ".join(feature.tokens))
  extractor = fe_extractor.FeatureExtractor(
      bert_config, init_checkpoint, layer_indexes,
      use_one_hot_embeddings=use_one_hot_embeddings, strategy=strategy)
  count = 0
  with atomic_open(output_file, "w") as writer:
    for feature, outputs in extractor.run(features, batch_size,
                                          trim_padding=trim_padding):
      writer.write(fe_output.format_line(feature, outputs, pooling) + "\n")
      count += 1
  logging.info("Wrote %d lines to %s", count, output_file)
  return count
