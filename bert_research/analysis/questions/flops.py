"""`flops`: attention against feed-forward FLOPs per layer, against the
sequence length.
"""




def layer_flops(n, d, d_ff):
  """(attention, dense) multiply-add FLOPs x2 of one encoder layer.

  attention = 4 n^2 d (q.k and probs.v); dense = 8 n d^2 (q, k, v, output
  projections) + 4 n d d_ff (the two feed-forward matrices).

  >>> layer_flops(128, 384, 1536)
  (25165824, 452984832)
  """
  return 4 * n * n * d, 8 * n * d * d + 4 * n * d * d_ff


def crossover_length(d, d_ff):
  """The n where 4 n^2 d = 8 n d^2 + 4 n d d_ff, i.e. n = 2 d + d_ff.

  >>> crossover_length(384, 1536), crossover_length(768, 3072)
  (2304, 4608)
  """
  return 2 * d + d_ff


def run_flops(args):
  d, f = args.hidden, args.intermediate
  print("per layer, d=%d, d_ff=%d: attention 4 n^2 d overtakes 8 n d^2 + "
        "4 n d d_ff at n = 2 d + d_ff = %d" % (d, f, crossover_length(d, f)))
  print("| n | attention GFLOP | projections + feed-forward GFLOP | "
        "attention share |")
  print("|---|---|---|---|")
  for n in (128, 512, 1024, 2048, 4096, 8192):
    att, dense = layer_flops(n, d, f)
    print("| %d | %.2f | %.2f | %.0f%% |" % (n, att / 1e9, dense / 1e9,
                                            100.0 * att / (att + dense)))
