"""bert_tf2.common.setup_checks: the scripts' shared start-up checks."""

import json

import pytest

from bert_tf2.common import InputError
from bert_tf2.common import setup_checks

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat"]


def _files(tmp_path, vocab=VOCAB, vocab_size=len(VOCAB)):
  config = tmp_path / "bert_config.json"
  config.write_text(json.dumps({
      "vocab_size": vocab_size, "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 16,
      "max_position_embeddings": 32}))
  vocab_file = tmp_path / "vocab.txt"
  vocab_file.write_text("\n".join(vocab) + "\n")
  return str(config), str(vocab_file)


def test_loads_config_and_tokenizer(tmp_path):
  config_file, vocab_file = _files(tmp_path, vocab_size=len(VOCAB) + 3)
  config, tokenizer = setup_checks.load_config_and_tokenizer(
      config_file, vocab_file, max_seq_length=32)
  assert config.vocab_size == len(VOCAB) + 3
  assert tokenizer.tokenize("The cat") == ["the", "cat"]


@pytest.mark.parametrize("case, message", [
    ("vocab_too_big", r"--vocab_file=.*vocab\.txt has 7 tokens but "
     r"--bert_config_file=.*bert_config\.json has vocab_size=6"),
    ("no_cls", r"--vocab_file=.*vocab\.txt: has no \[CLS\] token"),
    ("too_long", r"--max_seq_length=33 is longer than "
     r"max_position_embeddings=32"),
    ("casing", r"--do_lower_case=False does not match --init_checkpoint"),
    ("no_checkpoint", r"--init_checkpoint=.*nope\.ckpt: no checkpoint there"),
    ("no_config", r"--bert_config_file=.*missing\.json: file not found"),
])
def test_each_mismatch_is_one_clear_error(tmp_path, case, message):
  kwargs = {}
  vocab, vocab_size = VOCAB, len(VOCAB)
  if case == "vocab_too_big":
    vocab_size -= 1
  elif case == "no_cls":
    vocab = [t for t in VOCAB if t != "[CLS]"]
  config_file, vocab_file = _files(tmp_path, vocab, vocab_size)
  if case == "too_long":
    kwargs["max_seq_length"] = 33
  elif case == "casing":
    kwargs.update(do_lower_case=False, init_checkpoint=str(
        tmp_path / "uncased_L-12_H-768_A-12" / "bert_model.ckpt"))
  elif case == "no_checkpoint":
    kwargs["init_checkpoint"] = str(tmp_path / "nope.ckpt")
  elif case == "no_config":
    config_file = str(tmp_path / "missing.json")
  with pytest.raises(InputError, match=message):
    setup_checks.load_config_and_tokenizer(config_file, vocab_file, **kwargs)


def test_casing_check_can_be_left_out(tmp_path):
  # extract_features.py, as the original, does not check the casing.
  config_file, vocab_file = _files(tmp_path)
  with pytest.raises(InputError, match="no checkpoint there"):
    setup_checks.load_config_and_tokenizer(
        config_file, vocab_file, do_lower_case=False, check_casing=False,
        init_checkpoint=str(tmp_path / "uncased_L-12_H-768_A-12" /
                            "bert_model.ckpt"))
