"""Our optimizer vs Google's optimization.py (run under compat.v1)."""

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

import optimization
from tests.golden import optimization_problem as problem
from tests.golden import run_golden

# name: (init_lr, num_train_steps, num_warmup_steps, steps, loss_scale)
SCENARIOS = {
    # Large gradients: global-norm clipping active; warmup then decay, and
    # steps past num_train_steps (learning rate 0).
    "clip": (0.05, 10, 3, 12, 30.0),
    # Small gradients (no clipping), no warmup.
    "noclip": (0.01, 20, 0, 6, 0.05),
    # Warmup longer than the run.
    "longwarmup": (0.02, 10, 8, 6, 1.0),
}
LR_CONFIGS = [(1e-4, 10, 3), (5e-5, 100, 0), (2e-5, 7, 10), (1.0, 1000, 100),
              (3e-5, 12345, 1234)]
LR_STEPS = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 50, 99, 100, 101, 1000, 1001,
            1233, 1234, 1235, 12344, 12345, 12346]


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("opt_golden")
  inputs = {"scenarios": np.array(list(SCENARIOS)),
            "lr:configs": np.array(LR_CONFIGS, np.float64),
            "lr:steps": np.array(LR_STEPS, np.int64)}
  for name, (lr, train, warmup, steps, scale) in SCENARIOS.items():
    inputs.update({name + ":init_lr": lr, name + ":num_train_steps": train,
                   name + ":num_warmup_steps": warmup, name + ":steps": steps,
                   name + ":loss_scale": scale})
  np.savez(tmp / "in.npz", **inputs)
  ckpt_dir = tmp / "ckpt"
  ckpt_dir.mkdir()
  run_golden("tests.golden.optimization_golden", tmp / "in.npz",
             tmp / "out.npz", ckpt_dir)
  return dict(np.load(tmp / "out.npz")), str(ckpt_dir)


def train_ours(name, optimizer="adamw"):
  lr, train, warmup, steps, scale = SCENARIOS[name]
  # Neutral Keras names: weight-decay exclusion must come from the original
  # names given to the optimizer.
  weights = {n: keras.Variable(v, name="v%d" % i)
             for i, (n, v) in enumerate(problem.initial_weights().items())}
  opt = optimization.create_optimizer(lr, train, warmup, optimizer=optimizer,
                                      variable_names=weights)
  x, y = problem.batch()
  variables = list(weights.values())
  losses, rates = [], []
  for _ in range(steps):
    with tf.GradientTape() as tape:
      loss = problem.loss_fn(tf, {n: v.value for n, v in weights.items()},
                             x, y) * scale
    rates.append(float(opt.learning_rate))
    opt.apply(tape.gradient(loss, variables), variables)
    losses.append(float(loss))
  return weights, opt, np.array(losses), np.array(rates)


@pytest.mark.golden
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_same_weights_and_slots_as_original(golden, name):
  out, _ = golden
  weights, opt, losses, rates = train_ours(name)
  np.testing.assert_allclose(rates, out[name + ":lr"], rtol=1e-7, atol=0)
  np.testing.assert_allclose(losses, out[name + ":losses"], rtol=2e-6,
                             atol=1e-7)
  assert int(opt.iterations.numpy()) == int(out[name + ":global_step"])
  ours = {n: v.numpy() for n, v in weights.items()}
  ours.update({n: v.numpy() for n, v in opt.slot_variables().items()})
  theirs = {k.split(":v:", 1)[1].replace("|", "/"): v
            for k, v in out.items() if k.startswith(name + ":v:")}
  theirs.pop("global_step")
  assert sorted(ours) == sorted(theirs)
  for key, value in theirs.items():
    np.testing.assert_allclose(ours[key], value, rtol=1e-5, atol=1e-6,
                               err_msg=key)
  # The updates moved every variable: the comparison is not vacuous.
  for n, v in problem.initial_weights().items():
    assert np.abs(ours[n] - v).max() > 1e-4, n


@pytest.mark.golden
def test_weight_decay_exclusion_matters(golden):
  """Decay excluded exactly for LayerNorm/bias: changing it breaks parity."""
  out, _ = golden
  name = "clip"
  lr, train, warmup, steps, scale = SCENARIOS[name]
  weights = {n: keras.Variable(v) for n, v in problem.initial_weights().items()}
  opt = optimization.create_optimizer(lr, train, warmup,
                                      exclude_from_weight_decay=[],
                                      variable_names=weights)
  x, y = problem.batch()
  variables = list(weights.values())
  for _ in range(steps):
    with tf.GradientTape() as tape:
      loss = problem.loss_fn(tf, {n: v.value for n, v in weights.items()},
                             x, y) * scale
    opt.apply(tape.gradient(loss, variables), variables)
  for key in ("layer/LayerNorm/beta", "layer/dense/bias",
              "cls/output_bias"):
    theirs = out[name + ":v:" + key.replace("/", "|")]
    assert np.abs(weights[key].numpy() - theirs).max() > 1e-4, key


@pytest.mark.golden
def test_learning_rate_schedule_matches_original(golden):
  out, _ = golden
  for j, (init_lr, train, warmup) in enumerate(LR_CONFIGS):
    schedule = optimization.WarmupPolynomialDecay(init_lr, train, warmup)
    ours = np.array([float(schedule(s)) for s in LR_STEPS], np.float32)
    np.testing.assert_array_equal(ours, out["lr:%d" % j],
                                  err_msg=str(LR_CONFIGS[j]))


@pytest.mark.golden
def test_checkpoint_names_match_original(golden):
  """Our slot/step names are the original checkpoint's names."""
  _, ckpt_dir = golden
  prefix = tf.train.latest_checkpoint(ckpt_dir)
  theirs = {n for n, _ in tf.train.list_variables(prefix)}
  weights, opt, _, _ = train_ours(list(SCENARIOS)[-1])
  ours = set(weights) | set(opt.slot_variables()) | {"global_step"}
  assert ours == theirs
  reader = tf.train.load_checkpoint(prefix)
  for name, var in opt.slot_variables().items():
    np.testing.assert_allclose(var.numpy(), reader.get_tensor(name),
                               rtol=1e-5, atol=1e-6)
  assert os.path.basename(prefix) == "model.ckpt-%d" % int(
      opt.iterations.numpy())
