"""Unit tests of optimization/ (schedule, AdamWeightDecay, LAMB, helpers)."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import optimization


def test_schedule_same_bits_eager_and_graph():
  configs = [(1e-4, 10, 3), (5e-5, 100000, 10000), (2e-5, 7, 10),
             (3e-5, 12345, 1234), (1.0, 9, 0)]
  steps = np.array([0, 1, 2, 3, 6, 7, 9, 10, 11, 999, 1233, 1234, 1235,
                    9999, 10000, 10001, 12344, 12345, 12346, 99999, 100000,
                    100001], np.int64)
  for init_lr, train, warmup in configs:
    schedule = optimization.WarmupPolynomialDecay(init_lr, train, warmup)
    eager = np.array([float(schedule(s)) for s in steps], np.float32)
    graph_fn = tf.function(lambda s, f=schedule: f(s))
    graph = np.array([float(graph_fn(tf.constant(s))) for s in steps],
                     np.float32)
    np.testing.assert_array_equal(eager, graph)
    # Shape of the schedule: linear warmup, peak, linear decay, zero.
    assert eager[0] == (0.0 if warmup else np.float32(init_lr))
    assert np.all(eager[steps >= max(train, warmup)] == 0.0)
    if warmup and warmup < train:
      assert abs(float(schedule(warmup)) -
                 init_lr * (1 - warmup / train)) < 1e-6 * init_lr


def test_step_offset_shifts_schedule():
  base = optimization.WarmupPolynomialDecay(1e-3, 20, 5)
  shifted = optimization.WarmupPolynomialDecay(1e-3, 20, 5, step_offset=1)
  for s in range(25):
    assert float(shifted(s)) == float(base(s + 1))


def test_create_optimizer_first_update_uses_rate_of_step_one():
  opt = optimization.create_optimizer(1e-3, num_train_steps=100,
                                      num_warmup_steps=10)
  assert abs(float(opt.learning_rate) - 1e-4) < 1e-10
  opt0 = optimization.create_optimizer(1e-3, 100, 10, lr_step_offset=0)
  assert float(opt0.learning_rate) == 0.0


def test_create_optimizer_rejects_tf1_signature_and_bad_name():
  with pytest.raises(TypeError, match="learning rate first"):
    optimization.create_optimizer(tf.constant(1.0), 1e-3, 10, 1, False)
  with pytest.raises(ValueError, match="--optimizer=sgd"):
    optimization.create_optimizer(1e-3, 10, 1, optimizer="sgd")


def _quadratic_run(opt, steps=5):
  w = keras.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32),
                     name="w")
  b = keras.Variable(np.array([0.1, -0.1], np.float32), name="b")
  opt.set_variable_names({"layer/kernel": w, "layer/bias": b})
  for _ in range(steps):
    with tf.GradientTape() as tape:
      loss = tf.reduce_sum(tf.square(w.value - 0.3)) + tf.reduce_sum(
          tf.square(b.value))
    opt.apply(tape.gradient(loss, [w, b]), [w, b])
  return w.numpy(), b.numpy()


def _numpy_adamw(steps, lr, wd, lamb=False, clip_norm=1.0):
  w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float64)
  b = np.array([0.1, -0.1], np.float64)
  params = [(w, True), (b, False)]
  m = [np.zeros_like(p) for p, _ in params]
  v = [np.zeros_like(p) for p, _ in params]
  for _ in range(steps):
    grads = [2 * (w - 0.3), 2 * b]
    norm = np.sqrt(sum((g ** 2).sum() for g in grads))
    if clip_norm:
      grads = [g * min(1.0, clip_norm / norm) for g in grads]
    for i, ((p, decay), g) in enumerate(zip(params, grads)):
      m[i] = 0.9 * m[i] + 0.1 * g
      v[i] = 0.999 * v[i] + 0.001 * g * g
      u = m[i] / (np.sqrt(v[i]) + 1e-6)
      if decay:
        u = u + wd * p
      ratio = 1.0
      if lamb and decay:
        ratio = np.linalg.norm(p) / np.linalg.norm(u)
      p -= ratio * lr * u
  return w, b


@pytest.mark.parametrize("name", ["adamw", "lamb"])
def test_update_rule_matches_numpy_reference(name):
  opt = optimization.create_optimizer(0.1, 1000000, 0, optimizer=name)
  w, b = _quadratic_run(opt)
  # Constant rate 0.1 * (1 - s/1e6) ~ 0.1: compare with a small tolerance.
  rw, rb = _numpy_adamw(5, 0.1, 0.01, lamb=(name == "lamb"))
  np.testing.assert_allclose(w, rw, rtol=2e-5, atol=2e-5)
  np.testing.assert_allclose(b, rb, rtol=2e-5, atol=2e-5)
  assert int(opt.iterations.numpy()) == 5


def test_slots_are_exported_under_original_names():
  opt = optimization.create_optimizer(0.1, 100, 0)
  _quadratic_run(opt, steps=1)
  assert sorted(opt.slot_variables()) == [
      "layer/bias/adam_m", "layer/bias/adam_v", "layer/kernel/adam_m",
      "layer/kernel/adam_v"]
  assert np.all(opt.slot_variables()["layer/kernel/adam_v"].numpy() > 0)


def test_set_variable_names_after_build_fails():
  opt = optimization.create_optimizer(0.1, 100, 0)
  w = keras.Variable([1.0])
  opt.build([w])
  with pytest.raises(RuntimeError, match="must be called before"):
    opt.set_variable_names({"w": w})


def test_slot_variables_before_build_fails():
  opt = optimization.AdamWeightDecay(0.1)
  with pytest.raises(RuntimeError, match="not built"):
    opt.slot_variables()


@pytest.mark.parametrize("clip_norm", [None, 0.0])
def test_clip_norm_none_or_zero_disables_clipping(clip_norm):
  # The quadratic's gradient norm is ~6, so the clipped run (clip_norm=1.0)
  # differs from the unclipped reference after the first step.
  opt = optimization.AdamWeightDecay(0.1, weight_decay_rate=0.01,
                                     exclude_from_weight_decay=["bias"],
                                     clip_norm=clip_norm)
  w, b = _quadratic_run(opt)
  rw, rb = _numpy_adamw(5, 0.1, 0.01, clip_norm=None)
  np.testing.assert_allclose(w, rw, rtol=2e-5, atol=2e-5)
  np.testing.assert_allclose(b, rb, rtol=2e-5, atol=2e-5)
  cw, _ = _numpy_adamw(5, 0.1, 0.01, clip_norm=1.0)
  assert np.abs(rw - cw).max() > 1e-3


def test_schedule_rejects_negative_warmup_and_bad_train_steps():
  with pytest.raises(ValueError, match="num_warmup_steps must be >= 0"):
    optimization.WarmupPolynomialDecay(1e-3, 10, -1)
  with pytest.raises(ValueError, match="num_train_steps must be a positive"):
    optimization.WarmupPolynomialDecay(1e-3, 0, 1)
  assert optimization.WarmupPolynomialDecay(1e-3, 10, None).num_warmup_steps == 0


def test_gradient_accumulator_means_and_resets():
  w = tf.Variable(tf.zeros([3]))
  acc = optimization.GradientAccumulator([w, tf.Variable(0.0)])
  acc.add([tf.constant([1.0, 2.0, 3.0]), None])
  acc.add([tf.constant([3.0, 2.0, 1.0]), None])
  mean = acc.mean(2)
  np.testing.assert_allclose(mean[0].numpy(), [2.0, 2.0, 2.0])
  assert mean[1] is None
  acc.reset()
  acc.add([tf.constant([1.0, 1.0, 1.0]), None])
  np.testing.assert_allclose(acc.mean(1)[0].numpy(), [1.0, 1.0, 1.0])
  with pytest.raises(ValueError, match="changed between micro-batches"):
    acc.add([tf.constant([1.0, 1.0, 1.0]), tf.constant(1.0)])


def test_gradient_accumulator_norm_terms_are_summed_and_scaled():
  acc = optimization.GradientAccumulator([tf.Variable(tf.zeros([2])),
                                          tf.Variable(0.0)])
  acc.add([tf.constant([1.0, 2.0]), tf.constant(1.0)],
          norm_terms=tf.constant([5.0, 1.0]))
  acc.add([tf.constant([3.0, 4.0]), tf.constant(2.0)],
          norm_terms=tf.constant([25.0, 4.0]))
  # Sum over micro-batches / steps^2: the mean gradient's squared norms.
  np.testing.assert_allclose(acc.mean_norm_terms(2).numpy(), [7.5, 1.25])
  acc.reset()
  acc.add([tf.constant([1.0, 1.0]), tf.constant(1.0)])
  np.testing.assert_allclose(acc.mean_norm_terms(1).numpy(), [0.0, 0.0])


def test_optimizer_config_round_trip():
  opt = optimization.create_optimizer(2e-5, 100, 10, optimizer="lamb")
  clone = optimization.Lamb.from_config(opt.get_config())
  assert opt.name == clone.name == "Lamb"
  assert clone.weight_decay_rate == 0.01
  assert clone.exclude_from_weight_decay == ["LayerNorm", "layer_norm",
                                             "bias"]
  assert float(clone.learning_rate) == float(opt.learning_rate)


def _sparse_problem():
  table = keras.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
  w = keras.Variable(np.array([0.5, -0.5], np.float32))
  values = np.array([[0.3, -0.2, 0.1], [0.25, -0.1, 0.2], [0.0, 0.4, -0.3]],
                    np.float32)
  indices = np.array([1, 1, 3])  # Row 1 looked up twice, as a repeated token.
  dense_w = np.array([0.2, 0.1], np.float32)
  return table, w, values, indices, dense_w


def _adam_step(param, grad, scale, lr=0.1):
  """(new param, adam_m) of the original's first step, gradient * scale."""
  g = grad * scale
  m, v = 0.1 * g, 0.001 * g * g
  return param - lr * m / (np.sqrt(v) + 1e-6), m


def _apply(values, indices, dense_table, dense_w, mode):
  table, w, _, _, _ = _sparse_problem()
  opt = optimization.AdamWeightDecay(0.1, clip_norm=0.5)
  opt.set_variable_names({"table": table, "w": w})
  if mode == "slices":
    opt.apply([tf.IndexedSlices(tf.constant(values), tf.constant(indices),
                                tf.constant([4, 3])), tf.constant(dense_w)],
              [table, w])
  elif mode == "terms":
    term = tf.constant(float((values ** 2).sum()))
    opt.apply([tf.constant(dense_table), tf.constant(dense_w)], [table, w],
              squared_norm_terms=[term, None])
  else:
    opt.apply([tf.constant(dense_table), tf.constant(dense_w)], [table, w])
  return table.numpy(), opt.slot_variables()["table/adam_m"].numpy()


def test_indexed_slices_clipped_by_their_values_as_the_original():
  """tf.clip_by_global_norm counts each looked-up row of an IndexedSlices
  gradient (the original's embedding gradient on CPU/GPU); the update uses
  the summed rows. apply's `squared_norm_terms` gives densified gradients the same
  clipping (what the runner does); plain dense gradients are clipped by
  their own, larger norm."""
  table, _, values, indices, dense_w = _sparse_problem()
  dense_table = np.zeros([4, 3], np.float32)
  np.add.at(dense_table, indices, values)
  occurrence_norm = np.sqrt((values ** 2).sum() + (dense_w ** 2).sum())
  dense_norm = np.sqrt((dense_table ** 2).sum() + (dense_w ** 2).sum())
  assert 0.5 < occurrence_norm < dense_norm - 0.05
  want = _adam_step(table.numpy(), dense_table, 0.5 / occurrence_norm)
  for mode in ("slices", "terms"):
    got = _apply(values, indices, dense_table, dense_w, mode)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-7,
                               err_msg=mode)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, err_msg=mode)
  got = _apply(values, indices, dense_table, dense_w, "dense")
  np.testing.assert_allclose(
      got[1], _adam_step(table.numpy(), dense_table, 0.5 / dense_norm)[1],
      rtol=1e-5)
  assert not np.allclose(got[1], want[1], rtol=1e-2)


@pytest.mark.parametrize("name", ["adamw", "lamb"])
def test_learning_rate_multiplier_scales_only_matching_variables(name):
  """{"^crf/": 100}: the crf variable moves 100x as far in its first Adam
  step (LAMB: 100x before its trust ratio, which the zero weights skip);
  the encoder variable moves as without multipliers."""
  def first_step(multipliers):
    enc = keras.Variable(np.zeros([3], np.float32), name="enc")
    crf = keras.Variable(np.zeros([2], np.float32), name="crf")
    opt = optimization.create_optimizer(
        1e-4, 10, 0, optimizer=name, weight_decay_rate=0.0, clip_norm=None,
        learning_rate_multipliers=multipliers,
        variable_names={"bert/w": enc, "crf/transitions": crf})
    opt.apply([tf.ones([3]), tf.ones([2])], [enc, crf])
    return enc.numpy(), crf.numpy()
  enc0, crf0 = first_step(None)
  enc1, crf1 = first_step({"^crf/": 100.0})
  np.testing.assert_array_equal(enc0, enc1)
  assert np.all(crf0 != 0)
  np.testing.assert_allclose(crf1, 100.0 * crf0, rtol=1e-5)
  opt = optimization.create_optimizer(1e-4, 10, 0,
                                      learning_rate_multipliers={"a": 2})
  assert opt.get_config()["learning_rate_multipliers"] == {"a": 2.0}
