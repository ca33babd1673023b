"""A `python` for tests that start script processes, minus TensorFlow's
import in each.

Tests that run documented command lines or scripts as a user does
(`python script.py ...`, `python -m package.module ...`, `python -c ...`,
shell scripts that call `$PY ...`) pay TensorFlow's import, about 4
CPU-seconds, in every process. `WarmPython` starts one server process that
imports TensorFlow and Keras once and writes a `python` command (for the
front of PATH, or to start directly): each call sends its argv, working
directory, environment and stdin/stdout/stderr file descriptors to the
server, which forks a child that runs the program as the interpreter would:
`runpy`, `sys.argv`, `sys.path` (the program's directory or "", then its
own PYTHONPATH), its exit status, an uncaught exception as a traceback and
status 1; its `sys.executable` is the command, so the Python programs it
starts that way (quickstart.py's stages) are served too. The command exits with the child's status (128 + N when signal
N ended it); SIGTERM, SIGINT and SIGHUP sent to the command go to the
child, and a command killed otherwise (SIGKILL) takes its child with it.
Any other interpreter option (`python -u ...`, `python` alone) runs the
real interpreter. `command(name, preload, env)` keeps one server per name:
the golden tests' runs of the original code have their own, started in
the reference environment (TF_USE_LEGACY_KERAS=1) with tensorflow and
tf_keras imported (tests/golden/__init__.py). No server imports anything
of the project, so every program starts from fresh absl flags, Keras
registrations and project modules, as in a new process. What differs
from a new process: TensorFlow was imported before the program ran, so a
program's settings made before its TensorFlow import
(bert_tf2/common/quiet_start.py's silencing of the start-up lines) do not
apply; tests about those start the real interpreter.
"""

import atexit
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

_SERVER = r"""
import importlib, json, os, runpy, select, signal, socket, sys, threading
import traceback
for name in sys.argv[3].split(","):  # The costly imports, once, before the
  importlib.import_module(name)      # forks (tensorflow, keras by default).

# sys.path without the server's PYTHONPATH: each program puts its own.
_OWN = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
BASE_PATH = [p for p in sys.path[1:] if p not in _OWN]
COMMAND = sys.argv[2]  # The `python` command: each program's sys.executable.

def run(argv):
  # As `python <argv>`: sys.argv, sys.path and the program's module; the
  # Python processes it starts with sys.executable are served here too.
  sys.executable = COMMAND
  sys.path[:] = [""] + [p for p in os.environ.get("PYTHONPATH", "").split(
      os.pathsep) if p] + BASE_PATH
  if argv[0] == "-c":
    sys.argv = ["-c"] + argv[2:]
    exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
  elif argv[0] == "-m":
    sys.argv = [argv[1]] + argv[2:]
    sys.path[0] = os.getcwd()
    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
  else:
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")

def program(request, fds):
  for target, fd in enumerate(fds):
    os.dup2(fd, target)
    os.close(fd)
  os.chdir(request["cwd"])
  os.environ.clear()
  os.environ.update(request["env"])
  sys.stdin = open(0, closefd=False)
  sys.stdout = open(1, "w", closefd=False)
  sys.stderr = open(2, "w", closefd=False)
  status = 0
  try:
    run(request["argv"])
  except SystemExit as e:
    if e.code is None:
      status = 0
    elif isinstance(e.code, int):
      status = e.code
    else:
      print(e.code, file=sys.stderr)
      status = 1
  except BaseException as e:  # pylint: disable=broad-except
    # Without this file's two frames (program, run), as Python prints it.
    traceback.print_exception(type(e), e, e.__traceback__.tb_next.tb_next)
    status = 1
  try:
    import atexit
    atexit._run_exitfuncs()  # pylint: disable=protected-access
  finally:
    for stream in (sys.stdout, sys.stderr):
      try:
        stream.flush()
      except Exception:  # pylint: disable=broad-except
        pass
    os._exit(status & 0xff)

def kill_when_closed(conn, pid):
  # The client sends nothing more: end of stream means it was killed.
  try:
    while conn.recv(64):
      pass
  except OSError:
    pass
  try:
    os.kill(pid, signal.SIGKILL)
  except ProcessLookupError:
    pass

def runner(conn, data, fds):
  # Starts the program, forwards a SIGTERM of the server as a SIGKILL,
  # reports the program's status to the client, waits for nothing else.
  pid = os.fork()
  if pid == 0:
    conn.close()
    program(json.loads(data.decode()), fds)
  signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGKILL))
  for fd in fds:
    os.close(fd)
  try:
    conn.sendall(b"%d\n" % pid)  # The client forwards its signals there.
    threading.Thread(target=kill_when_closed, args=(conn, pid),
                     daemon=True).start()
  except OSError:  # The client was killed.
    os.kill(pid, signal.SIGKILL)
  _, status = os.waitpid(pid, 0)
  code = (os.WEXITSTATUS(status) if os.WIFEXITED(status)
          else 128 + os.WTERMSIG(status))
  try:
    conn.sendall(str(code).encode())
  except OSError:
    pass
  os._exit(0)

def serve(path):
  # Forks a runner per request until its stdin closes; then stops the
  # runners left and waits for every one (their CPU time is then counted
  # in this process's children, and in the test process's).
  server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
  server.bind(path)
  server.listen(64)
  runners = set()
  print("ready", flush=True)
  while True:
    readable, _, _ = select.select([server, sys.stdin], [], [], 1.0)
    while runners:
      pid, _ = os.waitpid(-1, os.WNOHANG)
      if not pid:
        break
      runners.discard(pid)
    if sys.stdin in readable and not os.read(0, 1):
      break
    if server not in readable:
      continue
    conn, _ = server.accept()
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while not data.endswith(b"\n"):  # The request is one JSON line.
      chunk = conn.recv(1 << 16)
      if not chunk:
        break
      data += chunk
    pid = os.fork()
    if pid == 0:
      server.close()
      runner(conn, data, fds)
    runners.add(pid)
    conn.close()
    for fd in fds:
      os.close(fd)
  for pid in runners:
    os.kill(pid, signal.SIGTERM)
  for pid in runners:
    os.waitpid(pid, 0)

serve(sys.argv[1])
"""

_CLIENT = r"""#!%(python)s -S
import json, os, signal, socket, sys
argv = sys.argv[1:]
if len(argv) < 2 or not (argv[0] in ("-c", "-m") or
                         not argv[0].startswith("-")):
  os.execv(%(python)r, [%(python)r] + argv)
request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
program, pending = [], []

def forward(number, _):  # To the program, once its pid is known.
  if program:
    os.kill(program[0], number)
  else:
    pending.append(number)

for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
  signal.signal(number, forward)
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(%(socket)r)
socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
answer = b""
while True:
  chunk = conn.recv(64)
  if not chunk:
    break
  answer += chunk
  if not program and b"\n" in answer:
    program.append(int(answer.split(b"\n")[0]))
    for number in pending:
      os.kill(program[0], number)
_, _, status = answer.partition(b"\n")
sys.exit(int(status) if status else 1)
"""


class WarmPython:
  """The server and the `python` command of the module docstring.

  Use as a context manager; `bin_dir` is the directory to put first on
  PATH. The server runs with this process's environment (PYTHONPATH
  included); each program gets the environment of its caller.
  """

  def __init__(self, work_dir, preload=("tensorflow", "keras"), env=None):
    self.bin_dir = os.path.join(work_dir, "bin")
    self._preload = ",".join(preload)
    self._env = env
    # A short path: a Unix socket's is limited to 107 bytes.
    self._socket_dir = tempfile.mkdtemp(prefix="warm")
    self._socket = os.path.join(self._socket_dir, "s")
    self._server = None

  def __enter__(self):
    os.makedirs(self.bin_dir, exist_ok=True)
    command = os.path.join(self.bin_dir, "python")
    self._server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, self._socket, command,
         self._preload], env=self._env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        start_new_session=True)
    line = self._server.stdout.readline()
    if line.strip() != "ready":
      self._server.kill()
      raise RuntimeError("the warm python server did not start (it imports "
                         "%s; its error is on stderr above)" % self._preload)
    with open(command, "w") as f:
      f.write(_CLIENT % {"python": sys.executable, "socket": self._socket})
    os.chmod(command, os.stat(command).st_mode | stat.S_IXUSR)
    return self

  def __exit__(self, *exc):
    self._server.stdin.close()  # The server stops what still runs, exits.
    try:
      self._server.wait(timeout=60)
    finally:
      # Its session: anything left (a runner killed too early to stop its
      # program).
      try:
        os.killpg(self._server.pid, signal.SIGKILL)
      except ProcessLookupError:
        pass
      self._server.wait()
      self._server.stdout.close()
    shutil.rmtree(self._socket_dir, ignore_errors=True)
    return False


_SHARED = {}


def command(name="default", preload=("tensorflow", "keras"), env=None):
  """The path of a `python` command served by this process's shared server
  `name`, started at the first call (importing `preload`, in `env`, else
  this process's environment) and killed when this process exits."""
  if name not in _SHARED:
    work_dir = tempfile.mkdtemp(prefix="warm_python")
    warm = WarmPython(work_dir, preload, env)
    warm.__enter__()
    atexit.register(shutil.rmtree, work_dir, True)
    atexit.register(warm.__exit__)
    _SHARED[name] = warm
  return os.path.join(_SHARED[name].bin_dir, "python")
