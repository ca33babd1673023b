"""SIGTERM/SIGINT during training: stop at a step boundary, save, exit.

While `SignalWatcher` is active, either signal sets a host-side boolean
`tf.Variable` that the training loop reads before every step; the runner
then saves a checkpoint and raises `TrainingInterrupted`. The flag is set
from a helper thread woken by `signal.set_wakeup_fd`: Python runs signal
handlers only between bytecodes, not inside a tf.function call.
"""

import signal
import socket
import threading

from absl import logging
import tensorflow as tf

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class TrainingInterrupted(SystemExit):
  """Training stopped by a signal after saving a checkpoint.

  A SystemExit, so a script exits without a traceback, with status
  128 + signal number (143 for SIGTERM, 130 for SIGINT) as a killed process
  would; a cluster manager can restart it and training resumes.

  Attributes:
    signum: the signal received.
    step: the global step of the checkpoint saved.
    checkpoint: its prefix.
  """

  def __init__(self, signum, step, checkpoint):
    super().__init__(128 + int(signum))
    self.signum = int(signum)
    self.step = step
    self.checkpoint = checkpoint

  def __str__(self):
    return ("training interrupted by %s at step %s; checkpoint %s saved"
            % (signal.Signals(self.signum).name, self.step, self.checkpoint))


class SignalWatcher(object):
  """Context manager: catches SIGTERM/SIGINT and raises a stop flag.

  Attributes:
    stop_flag: scalar bool tf.Variable on the host CPU, True once a signal
      arrived (the training loop's condition reads it every step).
    signum: the first signal received, or None.
  """

  def __init__(self, enabled=True):
    with tf.init_scope(), tf.device("/cpu:0"):
      self.stop_flag = tf.Variable(False, trainable=False,
                                   name="stop_requested")
    self.signum = None
    self._handled = 0
    self._enabled = (enabled and
                     threading.current_thread() is threading.main_thread())
    self._previous = {}
    self._previous_fd = None
    self._sockets = None
    self._thread = None

  def _request_stop(self, signum):
    if self.signum is None:
      self.signum = signum
      logging.warning("Received %s: stopping after the current step and "
                      "saving a checkpoint", signal.Signals(signum).name)
    self.stop_flag.assign(True)

  def _handler(self, signum, frame):
    del frame
    self._handled += 1
    if self._handled > 1 and signum == signal.SIGINT:
      # A second Ctrl-C: give up waiting.
      raise KeyboardInterrupt
    self._request_stop(signum)

  def _watch(self, sock):
    while True:
      try:
        data = sock.recv(64)
      except OSError:
        return
      if not data:
        return
      for byte in data:
        if byte in [int(s) for s in _SIGNALS]:
          self._request_stop(byte)

  def __enter__(self):
    if not self._enabled:
      return self
    for sig in _SIGNALS:
      self._previous[sig] = signal.signal(sig, self._handler)
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    self._sockets = (reader, writer)
    self._previous_fd = signal.set_wakeup_fd(writer.fileno(),
                                             warn_on_full_buffer=False)
    self._thread = threading.Thread(target=self._watch, args=(reader,),
                                    name="signal-watcher", daemon=True)
    self._thread.start()
    return self

  def __exit__(self, *exc):
    if not self._enabled:
      return False
    signal.set_wakeup_fd(self._previous_fd)
    for sig, previous in self._previous.items():
      signal.signal(sig, previous)
    reader, writer = self._sockets
    try:
      writer.close()  # The watcher's recv() returns b"" and the thread ends.
      self._thread.join(timeout=5)
    finally:
      reader.close()
    return False


