"""`scale`: the attention softmax with and without the 1/sqrt(d) scale on
BBC text: entropy and the share of saturated rows (max prob > 0.99).
"""

import numpy as np

from bert_research.analysis.questions import common



def attention_logits(x, q_kernel, q_bias, k_kernel, k_bias, num_heads):
  """Unscaled q.k logits of one layer.

  Args:
    x: float [S, H], the layer's input.
    q_kernel, k_kernel: float [H, H]; q_bias, k_bias: float [H].
    num_heads: int N (H divisible by N).

  Returns:
    float [N, S, S]: q_i . k_j per head (no 1/sqrt(d) scale).
  """
  s, h = x.shape
  d = h // num_heads
  q = (x @ q_kernel + q_bias).reshape(s, num_heads, d).transpose(1, 0, 2)
  k = (x @ k_kernel + k_bias).reshape(s, num_heads, d).transpose(1, 0, 2)
  return q @ k.transpose(0, 2, 1)


def softmax_stats(logits, saturated=0.99):
  """(mean entropy in nats, share of rows whose max prob > saturated).

  Args:
    logits: float [..., S] (rows are the last axis).

  >>> e, sat = softmax_stats(np.array([[0.0, 0.0], [100.0, 0.0]]))
  >>> round(float(e), 3), float(sat)
  (0.347, 0.5)
  """
  z = logits - logits.max(axis=-1, keepdims=True)
  p = np.exp(z)
  p /= p.sum(axis=-1, keepdims=True)
  ent = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0),
                axis=-1)
  return float(ent.mean()), float(np.mean(p.max(axis=-1) > saturated))


def scale_rows(layer_logits, head_size):
  """Table rows: per layer, entropy and saturation with and without scale.

  Args:
    layer_logits: list over layers of lists of float [N, S, S] (one per
      sentence), unscaled.
    head_size: int d.

  Returns:
    list of (layer, entropy scaled, saturated scaled, entropy unscaled,
    saturated unscaled, uniform entropy), floats averaged over sentences.
  """
  rows = []
  for layer, per_sentence in enumerate(layer_logits):
    scaled = [softmax_stats(l / np.sqrt(head_size)) for l in per_sentence]
    raw = [softmax_stats(l) for l in per_sentence]
    uniform = np.mean([np.log(l.shape[-1]) for l in per_sentence])
    rows.append((layer,) + tuple(np.mean(scaled, axis=0))
                + tuple(np.mean(raw, axis=0)) + (float(uniform),))
  return rows


def run_scale(args):
  from bert_research.analysis import checkpoint_io  # pylint: disable=g-import-not-at-top
  model, config = common.load_model(args.bert_config_file, args.init_checkpoint)
  tok = common.full_tokenizer(args.vocab_file)
  sentences = common.bbc_sentences(args.sentences)
  heads = config.num_attention_heads
  read = lambda n: checkpoint_io.read_variable(args.init_checkpoint, n)
  per_layer = [[] for _ in range(config.num_hidden_layers)]
  forward = common.graph_forward(model)
  for text in sentences:
    ids, types = common.encode(tok, text, args.max_seq_length)
    out = forward({"input_ids": ids, "token_type_ids": types})
    inputs = [out["embedding_output"]] + list(out["encoder_outputs"][:-1])
    for layer, x in enumerate(inputs):
      scope = "bert/encoder/layer_%d/attention/self/" % layer
      per_layer[layer].append(attention_logits(
          np.asarray(x)[0], read(scope + "query/kernel"),
          read(scope + "query/bias"), read(scope + "key/kernel"),
          read(scope + "key/bias"), heads))
  d = config.hidden_size // heads
  print("%d BBC sentences, %d heads of size d=%d" % (len(sentences), heads, d))
  print("| layer | entropy, q.k/sqrt(d) | saturated rows | entropy, q.k "
        "| saturated rows | uniform entropy |")
  print("|---|---|---|---|---|---|")
  for row in scale_rows(per_layer, d):
    print("| %d | %.2f | %.1f%% | %.2f | %.1f%% | %.2f |"
          % (row[0], row[1], 100 * row[2], row[3], 100 * row[4], row[5]))
