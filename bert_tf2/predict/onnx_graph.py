"""ONNX graph rewrites for our tf2onnx export (bert_tf2/predict/int8.py).

`fuse_layer_norms(model)` replaces each layer normalisation that tf2onnx
lowered from `tf.nn.moments` + `tf.nn.batch_normalization` (twelve nodes)
by one `LayerNormalization` node (opset 17), which ONNX Runtime runs as
one kernel; its own optimizers expect ReduceMean and miss this lowering.
The matched pattern, for input x, scale gamma, offset beta, epsilon eps
(an initializer):

    mean = GlobalAveragePool(x); d = Sub(x, mean); var = GAP(Mul(d, d))
    r = Reciprocal(Sqrt(Add(var, eps))); s = Mul(r, gamma)
    out = Add(Mul(x, s), Sub(beta, Mul(mean, s)))

`fuse_gelus(model)` replaces each tanh-approximation GELU (the original's
`gelu`, eight elementwise nodes) by one ONNX Runtime `FastGelu` node
(domain com.microsoft, the same formula), which ONNX Runtime's own GELU
fusion does not match in tf2onnx's lowering:

    out = Mul(x, Mul(0.5, Add(1, Tanh(Mul(sqrt(2/pi),
                                          Add(x, Mul(0.044715, Pow(x, 3))))))))

or tf.nn.gelu's (float32 inference's), Mul(Mul(0.5, x), Add(1, Tanh(...))).

Nodes are only removed when nothing else reads their outputs.

Example:
  >>> from onnx import helper, TensorProto
  >>> g = helper.make_graph(
  ...     [helper.make_node("GlobalAveragePool", ["x"], ["m"])], "g",
  ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3])],
  ...     [helper.make_tensor_value_info("m", TensorProto.FLOAT, None)])
  >>> fuse_layer_norms(helper.make_model(g))  # Not a layer norm: untouched.
  0
"""

import functools


def _consumers(graph):
  """output name -> list of the nodes reading it (each node once)."""
  consumers = {}
  for node in graph.node:
    for name in dict.fromkeys(node.input):
      consumers.setdefault(name, []).append(node)
  return consumers


def _only_user(consumers, name, op_type):
  """The one node reading `name` if it is an `op_type`, else None."""
  nodes = consumers.get(name, [])
  if len(nodes) == 1 and nodes[0].op_type == op_type:
    return nodes[0]
  return None


def _match(mean, facts):
  """(nodes, LayerNormalization node) of the layer norm starting at
  GlobalAveragePool `mean`, or None (`_fuse`'s match)."""
  from onnx import helper  # pylint: disable=g-import-not-at-top
  from onnx import numpy_helper  # pylint: disable=g-import-not-at-top

  consumers, initializers = facts["consumers"], facts["initializers"]
  single = functools.partial(_only_user, consumers)
  x, m = mean.input[0], mean.output[0]
  mean_users = consumers.get(m, [])
  subs = [n for n in mean_users
          if n.op_type == "Sub" and list(n.input) == [x, m]]
  if len(mean_users) != 2 or len(subs) != 1:
    return None
  sub = subs[0]
  square = single(sub.output[0], "Mul")
  if square is None or list(square.input) != [sub.output[0]] * 2:
    return None
  var = single(square.output[0], "GlobalAveragePool")
  add = var and single(var.output[0], "Add")
  if add is None:
    return None
  eps = [i for i in add.input if i != var.output[0]]
  if len(eps) != 1 or eps[0] not in initializers:
    return None
  sqrt = single(add.output[0], "Sqrt")
  recip = sqrt and single(sqrt.output[0], "Reciprocal")
  scale = recip and single(recip.output[0], "Mul")
  if scale is None:
    return None
  gamma = [i for i in scale.input if i != recip.output[0]]
  users = consumers.get(scale.output[0], [])
  times_mean = [n for n in users if n.op_type == "Mul" and m in n.input]
  times_x = [n for n in users if n.op_type == "Mul" and x in n.input]
  if (len(gamma) != 1 or len(users) != 2 or len(times_mean) != 1 or
      len(times_x) != 1 or times_mean[0] is times_x[0]):
    return None
  offset = single(times_mean[0].output[0], "Sub")
  if offset is None or offset.input[1] != times_mean[0].output[0]:
    return None
  outs = [n for n in consumers.get(times_x[0].output[0], [])
          if n.op_type == "Add" and offset.output[0] in n.input]
  if (len(outs) != 1 or len(consumers.get(times_x[0].output[0], [])) != 1
      or len(consumers.get(offset.output[0], [])) != 1):
    return None
  epsilon = float(numpy_helper.to_array(initializers[eps[0]]).reshape(-1)[0])
  nodes = [mean, sub, square, var, add, sqrt, recip, scale, times_mean[0],
           times_x[0], offset, outs[0]]
  if any(o in facts["graph_outputs"] for n in nodes[:-1] for o in n.output):
    return None
  return nodes, helper.make_node(
      "LayerNormalization", [x, gamma[0], offset.input[0]],
      [outs[0].output[0]], name=outs[0].name + "/LayerNormalization",
      axis=-1, epsilon=epsilon)


def _drop_unused_initializers(graph):
  """Removes the initializers no node or graph output reads any more (the
  constants of fused patterns; ONNX Runtime warns about each one)."""
  def names_read(g):
    for node in g.node:
      yield from node.input
      for attribute in node.attribute:  # If / Loop bodies read outer names.
        for sub in list(attribute.graphs) + (
            [attribute.g] if attribute.HasField("g") else []):
          yield from names_read(sub)
  read = set(names_read(graph))
  read.update(o.name for o in graph.output)
  kept = [t for t in graph.initializer if t.name in read]
  if len(kept) != len(graph.initializer):
    del graph.initializer[:]
    graph.initializer.extend(kept)


def _fuse(graph, anchor_type, match):
  """Replaces the patterns `match` finds around each `anchor_type` node.

  match(node, facts) -> None, or (pattern nodes, replacement node) where
  the replacement takes the last pattern node's place; facts: a dict of
  "consumers", "producers", "initializers", "graph_outputs". Returns how
  many patterns were replaced; the constants only they read are dropped.
  """
  facts = {"consumers": _consumers(graph),
           "producers": {o: n for n in graph.node for o in n.output},
           "initializers": {t.name: t for t in graph.initializer},
           "graph_outputs": {o.name for o in graph.output}}
  removed, replacement = set(), {}
  for node in graph.node:
    if node.op_type != anchor_type or id(node) in removed:
      continue
    found = match(node, facts)
    if found is None:
      continue
    nodes, fused = found
    removed.update(id(n) for n in nodes)
    replacement[id(nodes[-1])] = fused
  kept = [replacement.get(id(n), n) for n in graph.node
          if id(n) in replacement or id(n) not in removed]
  del graph.node[:]
  graph.node.extend(kept)
  _drop_unused_initializers(graph)
  return len(replacement)


def fuse_layer_norms(model):
  """Rewrites `model` (onnx.ModelProto) in place; returns how many fused."""
  return _fuse(model.graph, "GlobalAveragePool", _match)


_GELU_CONSTANTS = {"cube": 3.0, "cubic": 0.044715,
                   "inner": 0.7978845608028654, "one": 1.0, "half": 0.5}


def _gelu_match(tanh, facts):
  """(nodes, FastGelu node) of the tanh-approximation GELU around Tanh node
  `tanh`, or None (`_fuse`'s match)."""
  from onnx import helper  # pylint: disable=g-import-not-at-top
  from onnx import numpy_helper  # pylint: disable=g-import-not-at-top

  producers, consumers = facts["producers"], facts["consumers"]
  initializers = facts["initializers"]

  def constant(name, key):
    if name not in initializers:
      return False
    value = numpy_helper.to_array(initializers[name]).reshape(-1)
    return value.size == 1 and abs(float(value[0]) - _GELU_CONSTANTS[key]) <= (
        1e-6 * _GELU_CONSTANTS[key])

  def other(node, name):
    """The input of two-input `node` that is not `name` (None if absent)."""
    rest = [i for i in node.input if i != name]
    return rest[0] if len(node.input) == 2 and len(rest) == 1 else None

  only_user = functools.partial(_only_user, consumers)
  inner = producers.get(tanh.input[0])
  if inner is None or inner.op_type != "Mul":
    return None
  k = [i for i in inner.input if constant(i, "inner")]
  if len(k) != 1:
    return None
  poly = producers.get(other(inner, k[0]))
  if poly is None or poly.op_type != "Add" or len(poly.input) != 2:
    return None
  for x, cubic_name in (tuple(poly.input), tuple(poly.input)[::-1]):
    cubic = producers.get(cubic_name)
    if cubic is not None and cubic.op_type == "Mul":
      break
  else:
    return None
  c = [i for i in cubic.input if constant(i, "cubic")]
  if len(c) != 1:
    return None
  power = producers.get(other(cubic, c[0]))
  if (power is None or power.op_type != "Pow" or power.input[0] != x or
      not constant(power.input[1], "cube")):
    return None
  plus_one = only_user(tanh.output[0], "Add")
  if plus_one is None or not constant(other(plus_one, tanh.output[0]) or "",
                                      "one"):
    return None
  halve = only_user(plus_one.output[0], "Mul")
  if halve is None:
    return None
  if constant(other(halve, plus_one.output[0]) or "", "half"):
    # The original's x * (0.5 * (1 + tanh)).
    out = only_user(halve.output[0], "Mul")
    if out is None or other(out, halve.output[0]) != x:
      return None
    nodes = [power, cubic, poly, inner, tanh, plus_one, halve, out]
  else:
    # tf.nn.gelu's (0.5 * x) * (1 + tanh), float32 inference's
    # (`modeling.activations`).
    half_x = producers.get(other(halve, plus_one.output[0]) or "")
    if (half_x is None or half_x.op_type != "Mul" or
        not constant(other(half_x, x) or "", "half")):
      return None
    nodes = [power, cubic, poly, inner, tanh, plus_one, half_x, halve]
  for node in nodes[:-1]:
    if len(consumers.get(node.output[0], [])) != 1 or (
        node.output[0] in facts["graph_outputs"]):
      return None
  return nodes, helper.make_node(
      "FastGelu", [x], [nodes[-1].output[0]],
      name=nodes[-1].name + "/FastGelu", domain="com.microsoft")


def fuse_gelus(model):
  """Rewrites `model` (onnx.ModelProto) in place: each tanh-approximation
  GELU becomes one com.microsoft FastGelu node; returns how many."""
  from onnx import helper  # pylint: disable=g-import-not-at-top
  count = _fuse(model.graph, "Tanh", _gelu_match)
  if count and not any(o.domain == "com.microsoft"
                       for o in model.opset_import):
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
  return count
