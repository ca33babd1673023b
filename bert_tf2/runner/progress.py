"""The training progress line: step/total, rate, elapsed time and ETA.

`Estimator.train` logs one such line every log_step_count_steps (at loop
boundaries), e.g.

  step 120/468 (25.6%), 1.19 steps/s, elapsed 0:01:41, ETA 0:04:52, ...

Example:
  >>> progress_message(step=120, max_steps=468, elapsed_secs=101.2,
  ...                  steps_per_sec=1.19)
  'step 120/468 (25.6%), 1.19 steps/s, elapsed 0:01:41, ETA 0:04:52'
"""


def format_duration(seconds):
  """Seconds as H:MM:SS, e.g. 3725.2 -> '1:02:05'; None or < 0 -> '?'."""
  if seconds is None or not 0 <= seconds < float("inf"):  # NaN: False.
    return "?"
  seconds = int(round(seconds))
  return "%d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)


def progress_message(step, max_steps, elapsed_secs, steps_per_sec):
  """One progress line for training at global step `step` of `max_steps`;
  the ETA is the remaining steps at `steps_per_sec` ('?' if 0 or None)."""
  percent = 100.0 * step / max_steps if max_steps else 100.0
  eta = None
  if steps_per_sec and steps_per_sec > 0:
    eta = max(0, max_steps - step) / steps_per_sec
  return "step %d/%d (%.1f%%), %.3g steps/s, elapsed %s, ETA %s" % (
      step, max_steps, percent, steps_per_sec or 0.0,
      format_duration(elapsed_secs), format_duration(eta))
