"""Runs a multi-worker job on this machine: N copies of a command.

    python -m bert_tf2.common.launch_local --num_workers=2 -- \\
        python run_pretraining.py --strategy=multi_worker ... \\
        --output_dir=/tmp/shared_output

Each copy gets its own TF_CONFIG (a cluster of N free 127.0.0.1 ports, task
index 0..N-1; worker 0 is the chief). A SIGTERM/SIGINT to the launcher is
passed to every worker; when one worker fails, the launcher names it and
how it ended on stderr ("worker 1 (pid 4242) was killed by SIGKILL") and
stops the others. The exit status is the first non-zero status of a worker
(128 + N for a death by signal N), else 0. Real clusters:
docs/distributed.md.

Example:
  >>> configs = tf_configs(2, ports=[2222, 2223])
  >>> configs[1]["task"]
  {'type': 'worker', 'index': 1}
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time


def free_ports(n, host="127.0.0.1"):
  """`n` distinct ports nobody listens on now (bound to 0, then released)."""
  socks = [socket.socket() for _ in range(n)]
  try:
    for s in socks:
      s.bind((host, 0))
    return [s.getsockname()[1] for s in socks]
  finally:
    for s in socks:
      s.close()


def tf_configs(num_workers, ports=None, host="127.0.0.1"):
  """The TF_CONFIG dict of each worker of a `num_workers` job on `host`."""
  ports = list(ports) if ports else free_ports(num_workers, host)
  if len(ports) != num_workers:
    raise ValueError("need %d ports, got %d" % (num_workers, len(ports)))
  workers = ["%s:%d" % (host, p) for p in ports]
  return [{"cluster": {"worker": workers},
           "task": {"type": "worker", "index": i}}
          for i in range(num_workers)]


def launch(command, num_workers, ports=None):
  """Starts the workers; returns their Popen objects."""
  procs = []
  for config in tf_configs(num_workers, ports):
    env = dict(os.environ, TF_CONFIG=json.dumps(config))
    procs.append(subprocess.Popen(command, env=env))
  return procs


def how_it_ended(returncode):
  """"exited with status 3" / "was killed by SIGKILL" for a returncode.

  Example:
    >>> how_it_ended(-9)
    'was killed by SIGKILL'
  """
  if returncode is not None and returncode < 0:
    try:
      name = signal.Signals(-returncode).name
    except ValueError:
      name = "signal %d" % -returncode
    return "was killed by %s" % name
  return "exited with status %s" % returncode


def exit_status(returncode):
  """A shell's status for a returncode: 128 + N for a death by signal N."""
  return 128 - returncode if returncode < 0 else returncode


def _report(message):
  sys.stderr.write("launch_local: %s\n" % message)
  sys.stderr.flush()


def wait(procs, poll_secs=0.2):
  """Waits for every worker; stops the rest when one fails (named on
  stderr, see module). Returns the exit status."""
  failed = None
  while any(p.poll() is None for p in procs):
    for index, p in enumerate(procs):
      code = p.poll()
      if code not in (None, 0) and failed is None:
        failed = exit_status(code)
        _report("worker %d (pid %d) %s; stopping the other workers"
                % (index, p.pid, how_it_ended(code)))
        for other in procs:
          if other.poll() is None:
            other.send_signal(signal.SIGTERM)
    time.sleep(poll_secs)
  codes = [p.returncode for p in procs]
  if failed is None:
    for index, (p, code) in enumerate(zip(procs, codes)):
      if code:
        failed = exit_status(code)
        _report("worker %d (pid %d) %s" % (index, p.pid, how_it_ended(code)))
        break
  return failed if failed is not None else 0


def main(argv=None):
  parser = argparse.ArgumentParser(
      description=__doc__.split("\n\n")[0],
      usage="python -m bert_tf2.common.launch_local --num_workers=N -- "
            "COMMAND [ARGS...]")
  parser.add_argument("--num_workers", type=int, default=2)
  parser.add_argument("--ports", default="",
                      help="comma-separated ports (default: free ones)")
  parser.add_argument("command", nargs=argparse.REMAINDER)
  args = parser.parse_args(argv)
  command = args.command[1:] if args.command[:1] == ["--"] else args.command
  if not command:
    parser.error("no command given after --")
  if args.num_workers < 1:
    parser.error("--num_workers=%d: must be >= 1" % args.num_workers)
  ports = [int(p) for p in args.ports.split(",") if p.strip()] or None
  if ports and len(ports) != args.num_workers:
    parser.error("--ports: %d ports for --num_workers=%d"
                 % (len(ports), args.num_workers))
  procs = launch(command, args.num_workers, ports)

  def forward(signum, frame):
    del frame
    for p in procs:
      if p.poll() is None:
        p.send_signal(signum)
  signal.signal(signal.SIGTERM, forward)
  signal.signal(signal.SIGINT, forward)
  return wait(procs)


if __name__ == "__main__":
  sys.exit(main())
