"""The start-up checks every BERT script makes before any work: a wrong
file is one `error: ...` line naming the flag.

Example:
  >>> try:
  ...   load_config_and_tokenizer("/no/bert_config.json", "/no/vocab.txt")
  ... except InputError as e:
  ...   print(e)
  --bert_config_file=/no/bert_config.json: file not found
"""

from absl import logging

from bert_tf2.common import cli
import modeling
import tokenization
from tokenization.errors import InputError


def load_config_and_tokenizer(bert_config_file, vocab_file,
                              do_lower_case=True, init_checkpoint=None,
                              max_seq_length=None, check_casing=True,
                              required_tokens=("[CLS]", "[SEP]")):
  """Loads (BertConfig, FullTokenizer) after checking the flags agree.

  Args:
    bert_config_file, vocab_file, do_lower_case, init_checkpoint (optional),
      max_seq_length (optional): the flags of those names.
    check_casing: refuse a --do_lower_case that contradicts a released
      model named in --init_checkpoint (as the original scripts do).
    required_tokens: tokens the vocabulary must hold.

  Returns:
    (modeling.BertConfig, tokenization.FullTokenizer).

  Raises:
    InputError: naming the flag and what is wrong.
  """
  cli.require_file("bert_config_file", bert_config_file)
  cli.require_file("vocab_file", vocab_file)
  if check_casing:
    tokenization.validate_case_matches_checkpoint(do_lower_case,
                                                  init_checkpoint)
  if init_checkpoint:
    modeling.resolve_checkpoint(init_checkpoint)
  try:
    bert_config = modeling.BertConfig.from_json_file(bert_config_file)
  except InputError:
    raise
  except Exception as e:  # pylint: disable=broad-except
    raise InputError("--bert_config_file=%s: %s" % (bert_config_file, e))
  if init_checkpoint:
    # From the checkpoint's index: before any record or model is made.
    modeling.check_config_matches_checkpoint(
        bert_config, init_checkpoint, config_file=bert_config_file)
  if max_seq_length is not None:
    modeling.check_sequence_length(bert_config, max_seq_length)
  tokenizer = tokenization.FullTokenizer(vocab_file=vocab_file,
                                         do_lower_case=do_lower_case)
  modeling.check_vocab_size(bert_config, len(tokenizer.vocab),
                            vocab_file=vocab_file,
                            config_file=bert_config_file)
  if len(tokenizer.vocab) < bert_config.vocab_size:
    logging.warning("vocab_file has %d tokens, bert config vocab_size=%d",
                    len(tokenizer.vocab), bert_config.vocab_size)
  for token in required_tokens:
    if token not in tokenizer.vocab:
      raise InputError("--vocab_file=%s: has no %s token" % (vocab_file,
                                                             token))
  return bert_config, tokenizer
