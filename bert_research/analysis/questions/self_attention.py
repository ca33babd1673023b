"""`self_attention`: how much weight each token puts on itself, with the
trained Q/K and with Q = K = V = the layer's input.
"""

import numpy as np

from bert_research.analysis.questions import common
from bert_research.analysis.questions import scale



def softmax(logits):
  """Softmax over the last axis (numpy, max-subtracted)."""
  z = np.exp(logits - logits.max(axis=-1, keepdims=True))
  return z / z.sum(axis=-1, keepdims=True)


def projection_free_attention(x, num_heads):
  """Attention with Q = K = V = the input: no projection matrices.

  Each head takes its slice of the hidden vector as query and key
  (`scale.attention_logits` with identity kernels and zero biases), scaled by
  1/sqrt(d) as in BERT.

  Args:
    x: float [S, H], the layer's input; num_heads: int N.

  Returns:
    float [N, S, S], rows summing to 1.

  >>> p = projection_free_attention(np.eye(4) * 10.0, 2)
  >>> np.round(np.diagonal(p, axis1=1, axis2=2), 2).tolist()[0]
  [1.0, 1.0, 0.25, 0.25]
  """
  h = x.shape[1]
  eye, zero = np.eye(h), np.zeros(h)
  logits = scale.attention_logits(x, eye, zero, eye, zero, num_heads)
  return softmax(logits / np.sqrt(h // num_heads))


def self_weight(probs):
  """(mean weight a token puts on itself, share of rows where it is the max).

  Args:
    probs: float [..., S, S] attention (rows = queries).

  >>> self_weight(np.array([[0.7, 0.3], [0.6, 0.4]]))
  (0.55, 0.5)
  """
  diag = np.diagonal(probs, axis1=-2, axis2=-1)
  top = np.argmax(probs, axis=-1) == np.arange(probs.shape[-1])
  return float(diag.mean()), float(top.mean())


def run_self_attention(args):
  model, config = common.load_model(args.bert_config_file, args.init_checkpoint)
  tok = common.full_tokenizer(args.vocab_file)
  heads = config.num_attention_heads
  rows = [[] for _ in range(config.num_hidden_layers)]
  lengths = []
  forward = common.graph_forward(model, return_attention_probs=True)
  for text in common.bbc_sentences(args.sentences):
    ids, types = common.encode(tok, text, args.max_seq_length)
    out = forward({"input_ids": ids, "token_type_ids": types})
    inputs = [out["embedding_output"]] + list(out["encoder_outputs"][:-1])
    lengths.append(ids.shape[1])
    for layer, x in enumerate(inputs):
      trained = np.asarray(out["attention_probs"][layer])[0]
      free = projection_free_attention(np.asarray(x)[0], heads)
      rows[layer].append(self_weight(trained) + self_weight(free))
  print("%d BBC sentences, %d-%d tokens (uniform weight 1/n: %.3f on "
        "average); %d heads of size %d, both ways"
        % (len(lengths), min(lengths), max(lengths),
           np.mean([1.0 / n for n in lengths]), heads,
           config.hidden_size // heads))
  print("| layer | weight on itself, trained Q, K | itself the largest, "
        "trained | weight on itself, Q = K = V = input | itself the "
        "largest, Q = K = V = input |")
  print("|---|---|---|---|---|")
  for layer, per_sentence in enumerate(rows):
    print("| %d | %.3f | %.1f%% | %.3f | %.1f%% |" % (
        (layer,) + tuple(np.mean(per_sentence, axis=0) * [1, 100, 1, 100])))
