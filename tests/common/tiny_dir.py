"""A tiny original-format checkpoint directory for the raw-string tests:
bert_config.json, vocab.txt and bert_model.ckpt* of a random BertModel."""

import modeling

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "angela", "merkel",
         "visited", "paris", "bob", "met", "ann", "in", "the", "a", "cat",
         "dog", "sat", "ran", "on", "mat", "##s", ".", ",", "江", "泽", "民",
         "在", "北", "京", "。"]


def config(vocab=VOCAB):
  return modeling.BertConfig(
      vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
      num_attention_heads=2, intermediate_size=24,
      max_position_embeddings=128)


def write(directory, vocab=VOCAB):
  """Writes the directory (a str path) and returns it."""
  cfg = config(vocab)
  encoder = modeling.BertModel(cfg)
  modeling.write_checkpoint(
      {n: v.numpy() for n, v in
       modeling.original_variable_names(encoder).items()},
      directory + "/bert_model.ckpt")
  cfg.to_json_file(directory + "/bert_config.json")
  with open(directory + "/vocab.txt", "w", encoding="utf-8") as f:
    f.write("\n".join(vocab) + "\n")
  return directory
