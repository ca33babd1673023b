"""Where a training step's time goes, measured by stages that add up.

The same pretraining (or fine-tuning) step as `bench.peer_ours`, timed as
cumulative stages, each its own `tf.function` (with or without XLA):

  forward, dropout off     loss with training=False
  forward                  + the dropout masks (training=True)
  forward + backward       + the gradients (tape.gradient)
  full step                + global-norm clipping and the AdamWeightDecay
                             update (`optimizer.apply`, as the runner)

Each stage's time minus the previous one is what that part costs. The
"matmul floor" row is the step's model FLOPs (`bench.shapes`) at the
float32 matmul ceiling measured in the same run (`bench.ceiling`): the time
the dense matmuls alone would take at their best.

    python -m bench.profile_step --mode train --jit_compile 1
    python -m bench.profile_step --mode finetune --jit_compile 0
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


def build_stages(args):
  """Returns [(name, fn)]: each fn runs one stage once, results fetched."""
  os.environ["CUDA_VISIBLE_DEVICES"] = ""
  os.environ.setdefault("KERAS_BACKEND", "tensorflow")
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  import modeling  # pylint: disable=g-import-not-at-top
  import optimization  # pylint: disable=g-import-not-at-top
  from bench import peer_ours  # pylint: disable=g-import-not-at-top

  cfg = modeling.BertConfig.from_dict(shapes.config_dict(args.config))
  batch = shapes.make_batch(shapes.SHAPES[args.config], args.batch_size,
                            args.seq_length, args.num_masked)
  features = {k: tf.constant(v) for k, v in
              peer_ours._features(batch, args.mode).items()}  # pylint: disable=protected-access
  from bert_tf2.runner import task as runner_task  # pylint: disable=g-import-not-at-top
  if args.mode == "train":
    from bert_tf2.pretraining.model import PretrainingModel  # pylint: disable=g-import-not-at-top
    task = runner_task.ModelTask(lambda: PretrainingModel(cfg))
  else:
    from bert_tf2.classifier.model import BertClassifier  # pylint: disable=g-import-not-at-top
    task = runner_task.ModelTask(lambda: BertClassifier(cfg, num_labels=2))
  model = task.build_model()
  task.compute_loss(model, features, training=False)
  optimizer = optimization.create_optimizer(1e-4, 10000, 100)
  optimizer.set_variable_names(task.checkpoint_variables(model))
  optimizer.build(model.trainable_variables)
  variables = model.trainable_variables
  jit = bool(args.jit_compile)

  def loss_only(training):
    return task.compute_loss(model, features, training=training)[0]

  def grads():
    with tf.GradientTape() as tape:
      loss = task.compute_loss(model, features, training=True)[0]
    g = tape.gradient(loss, variables)
    return loss, g

  def forward_backward():
    loss, g = grads()
    # One scalar depending on every gradient, so none is pruned.
    return loss + tf.add_n([tf.reduce_sum(tf.convert_to_tensor(x)[..., :1])
                            for x in g if x is not None])

  def full_step():
    loss, g = grads()
    optimizer.apply([tf.convert_to_tensor(x) for x in g], variables)
    return loss

  compiled = [
      ("forward, dropout off",
       tf.function(lambda: loss_only(False), jit_compile=jit)),
      ("forward", tf.function(lambda: loss_only(True), jit_compile=jit)),
      ("forward + backward", tf.function(forward_backward, jit_compile=jit)),
      ("full step (+ clipping, AdamWeightDecay)",
       tf.function(full_step, jit_compile=jit)),
  ]
  return [(name, (lambda f=f: float(f()))) for name, f in compiled]


def main():
  parser = timing.peer_arg_parser(__doc__)
  parser.add_argument("--ceiling", type=int, default=1,
                      help="1: measure the float32 matmul ceiling too.")
  args = parser.parse_args()
  if args.mode == "infer":
    parser.error("--mode: train or finetune (a training step's stages)")
  if args.device != "cpu" or args.precision != "float32":
    parser.error("--device/--precision: this profile runs float32 on the "
                 "CPU only")
  if args.jit_compile < 0:
    args.jit_compile = 1
  stages = build_stages(args)
  shape = shapes.SHAPES[args.config]
  flops = shapes.flops_per_sequence(shape, args.seq_length, args.num_masked,
                                    args.mode) * args.batch_size
  print("%s step, %s, seq %d, batch %d, XLA %s; ms per step, median of %d"
        % (args.mode, args.config, args.seq_length, args.batch_size,
           "on" if args.jit_compile else "off", args.repeats))
  print("| stage | ms | added by this stage |")
  print("|---|---|---|")
  previous = 0.0
  for name, fn in stages:
    ms = 1000 * statistics.median(timing.measure(
        fn, args.warmup, max(1, args.steps), args.repeats))
    print("| %s | %.0f | %+.0f |" % (name, ms, ms - previous))
    previous = ms
  if args.ceiling:
    from bench import ceiling  # pylint: disable=g-import-not-at-top
    gflops = ceiling.best(ceiling.measure(
        args.config, args.seq_length, args.batch_size, dtypes=("float32",),
        libraries=("tensorflow",)))
    print("| matmul floor (%.1f GFLOP at %.0f GFLOP/s) | %.0f | |"
          % (flops / 1e9, gflops, 1000 * flops / 1e9 / gflops))


if __name__ == "__main__":
  main()
