"""Below float32, the runner's training step runs gradient clipping and the
optimizer update as one XLA cluster (`loops.TrainSteps`, issue 48); the
weights it gives are those of the update run kernel by kernel."""

import numpy as np
import tensorflow as tf

import modeling
import optimization
from bert_tf2.classifier.model import BertClassifier
from bert_tf2.runner import loops
from bert_tf2.runner import precision
from bert_tf2.runner.task import ModelTask

BATCH, SEQ = 4, 16
CONFIG = modeling.BertConfig(
    vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=64, hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0, max_position_embeddings=SEQ,
    type_vocab_size=2)


def _features():
  rng = np.random.RandomState(0)
  mask = (np.arange(SEQ)[None, :] < rng.randint(5, SEQ + 1, [BATCH, 1]))
  return {"input_ids": tf.constant(rng.randint(1, 50, [BATCH, SEQ]) * mask,
                                   tf.int32),
          "input_mask": tf.constant(mask.astype(np.int32)),
          "segment_ids": tf.constant(np.zeros([BATCH, SEQ], np.int32)),
          "label_ids": tf.constant(rng.randint(0, 3, [BATCH]), tf.int32)}


def _steps(policy, initial=None, **kwargs):
  features = _features()
  task = ModelTask(lambda: BertClassifier(CONFIG, num_labels=3))
  with precision.policy_scope(policy):
    model = task.build_model()
    task.compute_loss(model, features, training=False)
  names = task.checkpoint_variables(model)
  if initial is not None:
    for name, value in initial.items():
      names[name].assign(value)
  optimizer = optimization.create_optimizer(1e-2, 100, 2)
  optimizer.gradients_aggregated = True
  optimizer.set_variable_names(names)
  optimizer.build(model.trainable_variables)
  steps = loops.TrainSteps(task, model, optimizer,
                           tf.distribute.get_strategy(), aggregated=True,
                           **kwargs)
  return steps, names, features


def _train(steps, features, n=3):
  iterator = iter(tf.data.Dataset.from_tensors(features).repeat())
  done, _, ok, _, _ = steps.loop(iterator, tf.constant(n),
                                 tf.Variable(False, trainable=False))
  assert bool(ok) and int(done) == n


def test_compiled_update_is_the_default_below_float32_only():
  assert _steps("bfloat16")[0].compiles_update
  assert not _steps("float32")[0].compiles_update
  # Under --jit_compile the whole step is compiled already.
  assert not _steps("bfloat16", jit_compile=True)[0].compiles_update


def test_compiled_update_gives_the_kernel_by_kernel_weights():
  tf.keras.utils.set_random_seed(0)
  _, names, _ = _steps("bfloat16")
  initial = {k: v.numpy() for k, v in names.items()}
  runs = []
  for compiled in (True, False):
    steps, names, features = _steps("bfloat16", initial,
                                    compile_update=compiled,
                                    cluster_elementwise=False)
    assert steps.compiles_update == compiled
    runs.append((steps, names))
  # The same gradients for both updates: computed once (the gradient
  # kernels' own sum order on a multi-core CPU can move a gradient that
  # nearly cancels, which Adam's normalisation magnifies; that is not the
  # update's doing). The other run's trace-time facts come from its own.
  _, grads, terms, _ = runs[0][0]._grads_fn(features)  # pylint: disable=protected-access
  runs[1][0]._grads_fn(features)  # pylint: disable=protected-access
  results = []
  for steps, names in runs:
    for _ in range(3):
      steps._apply_fn(grads, terms)  # pylint: disable=protected-access
    results.append({k: v.numpy() for k, v in names.items()})
  moved = 0
  for name, value in initial.items():
    # The same update up to float32 round-off (XLA may contract a * b + c
    # into one FMA).
    np.testing.assert_allclose(results[0][name], results[1][name],
                               rtol=1e-5, atol=1e-6, err_msg=name)
    moved += not np.allclose(results[0][name], value)
  assert moved == len(initial), "every variable is updated"
