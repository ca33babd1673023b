"""Activation functions by name, as `bert_config.json`'s `hidden_act` uses.

Names:
  "gelu"        the tanh approximation of GELU, exactly what the original
                BERT code (and every released BERT checkpoint) uses.
  "gelu_exact"  GELU with the exact Gaussian CDF (erf), what Hugging Face and
                PyTorch call "gelu". Not understood by the original code.
  "relu", "tanh", "linear" (identity; also "" or None).

Example:
  >>> import tensorflow as tf
  >>> float(get_activation("relu")(tf.constant(-1.0)))
  0.0
"""

import math

import tensorflow as tf

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(x):
  """GELU, tanh approximation (the original BERT's `gelu`).

  Args:
    x: float Tensor.

  Returns:
    Tensor like `x`: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
  """
  cdf = 0.5 * (1.0 + tf.tanh(
      (_SQRT_2_OVER_PI * (x + 0.044715 * tf.pow(x, 3)))))
  return x * cdf


def gelu_exact(x):
  """GELU with the exact normal CDF: x * 0.5 * (1 + erf(x / sqrt(2)))."""
  return 0.5 * x * (1.0 + tf.math.erf(x / tf.cast(math.sqrt(2.0), x.dtype)))


def identity(x):
  return x


_ACTIVATIONS = {
    "gelu": gelu,
    "gelu_exact": gelu_exact,
    "relu": tf.nn.relu,
    "tanh": tf.tanh,
    "linear": None,
}


# The same GELUs written as tf.nn.gelu, whose op pattern TensorFlow's graph
# optimizer (oneDNN remapper) fuses with the MatMul + BiasAdd before it into
# one kernel. Used by `layers.Dense` below float32 (bfloat16 inference on an
# AVX512-BF16 EPYC: +26%, docs/performance.md) and in float32 inference
# (MiniLM, 32 x 32 tokens: 103 -> 88 ms a batch; outputs within 2e-6 of the
# original's op sequence, which float32 training keeps bit for bit).
_FUSABLE = {
    "gelu": lambda x: tf.nn.gelu(x, approximate=True),
    "gelu_exact": lambda x: tf.nn.gelu(x, approximate=False),
}


def _gelu_float32(x, approximate):
  """GELU of `x` computed in float32, returned in x's dtype."""
  return tf.cast(tf.nn.gelu(tf.cast(x, tf.float32), approximate=approximate),
                 x.dtype)


def _gelu_grad_float32(x, dy, approximate):
  """dy * GELU'(x), computed in float32, returned in x's dtype."""
  x32 = tf.cast(x, tf.float32)
  if approximate:
    # d/dx of 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3).
    t = tf.tanh(_SQRT_2_OVER_PI * (x32 + 0.044715 * x32 * x32 * x32))
    du = _SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * x32 * x32)
    d = 0.5 * (1.0 + t) + 0.5 * x32 * (1.0 - t * t) * du
  else:
    # d/dx of x Phi(x): Phi(x) + x phi(x).
    d = (0.5 * (1.0 + tf.math.erf(x32 * (1.0 / math.sqrt(2.0)))) +
         x32 * tf.exp(-0.5 * x32 * x32) * (1.0 / math.sqrt(2.0 * math.pi)))
  return tf.cast(tf.cast(dy, tf.float32) * d, x.dtype)


def _training_gelu(approximate):
  """GELU whose forward and backward passes are one XLA cluster each.

  Outside XLA, TensorFlow runs GELU and its gradient as about 20 separate
  elementwise kernels per layer; below float32, where the matmuls are fast,
  they cost as much as a fifth of a training step (docs/performance.md).
  Here each pass reads its inputs once and computes in float32.
  """
  forward = tf.function(lambda x: _gelu_float32(x, approximate),
                        jit_compile=True, reduce_retracing=True,
                        autograph=False)
  backward = tf.function(
      lambda x, dy: _gelu_grad_float32(x, dy, approximate),
      jit_compile=True, reduce_retracing=True, autograph=False)

  @tf.custom_gradient
  def gelu_fn(x):
    return forward(x), lambda dy: backward(x, dy)
  return gelu_fn


# The GELUs of training steps below float32, outside XLA (`layers.Dense`).
_TRAINING = {
    "gelu": _training_gelu(approximate=True),
    "gelu_exact": _training_gelu(approximate=False),
}


def get_training_activation(activation_string):
  """The one-cluster-per-pass form of a named GELU, for training steps
  below float32 outside XLA (None for any other activation).

    >>> get_training_activation("relu") is None
    True
  """
  if not isinstance(activation_string, str):
    return None
  return _TRAINING.get(activation_string.lower())


def get_fusable_activation(activation_string):
  """The tf.nn form of a named GELU (None for any other activation).

    >>> get_fusable_activation("relu") is None
    True
  """
  if not isinstance(activation_string, str):
    return None
  return _FUSABLE.get(activation_string.lower())


def get_activation(activation_string):
  """Maps an activation name to a function, as the original's helper does.

  Args:
    activation_string: a name listed in the module docstring (any case), a
      callable (returned unchanged), or None / "" (no activation).

  Returns:
    A function of one Tensor, or None for "linear", "" and None.

  Raises:
    ValueError: unknown name (message lists the known ones).
  """
  if activation_string is None or callable(activation_string):
    return activation_string
  if not isinstance(activation_string, str):
    raise ValueError("activation must be a string, got %r"
                     % (activation_string,))
  if not activation_string:
    return None
  act = activation_string.lower()
  if act not in _ACTIVATIONS:
    raise ValueError("unsupported activation %r (known: %s)" % (
        activation_string, ", ".join(sorted(_ACTIVATIONS))))
  return _ACTIVATIONS[act]
