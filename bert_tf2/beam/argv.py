"""A script's command line split into its absl flags and Beam's options.

With `--runner=...` on the command line, every `--name=value` that is not
one of the script's absl flags is a Beam pipeline option; without it the
command line goes to absl whole. Imports apache_beam only in
`check_pipeline_args`.

Example:
  >>> from absl import flags
  >>> fv = flags.FlagValues()
  >>> _ = flags.DEFINE_string("input_file", None, "", flag_values=fv)
  >>> _ = flags.DEFINE_bool("do_lower_case", True, "", flag_values=fv)
  >>> split(["prog", "--input_file=a.txt", "--nodo_lower_case"], fv)
  (['prog', '--input_file=a.txt', '--nodo_lower_case'], None)
  >>> split(["prog", "--input_file", "a.txt", "--runner=DirectRunner",
  ...        "--direct_num_workers=2"], fv)
  (['prog', '--input_file', 'a.txt'], ['--runner=DirectRunner', '--direct_num_workers=2'])
"""

from bert_tf2.common import InputError


def _flag_name(arg):
  """The flag an argument names ("--x=1" -> "x"), or None."""
  if not arg.startswith("--") or arg == "--":
    return None
  return arg[2:].split("=", 1)[0]


def split(argv, flag_values):
  """(absl argv, Beam pipeline args or None) of a command line.

  Args:
    argv: list of str, sys.argv (program name first).
    flag_values: the script's absl FlagValues (its defined flags).

  Returns:
    (argv for absl, list of Beam option args) when `--runner` is given, else
    (argv, None).
  """
  if not any(_flag_name(arg) == "runner" for arg in argv[1:]):
    return list(argv), None
  absl_argv, beam_args = [argv[0]], []
  for arg in argv[1:]:
    name = _flag_name(arg)
    if name is None:
      absl_argv.append(arg)
      continue
    base = name[2:] if name.startswith("no") and name[2:] in flag_values \
        else name
    if base in flag_values or name in ("flagfile", "helpfull", "help"):
      absl_argv.append(arg)
    else:
      beam_args.append(arg)
  return absl_argv, beam_args


def check_pipeline_args(beam_args, script):
  """Beam's PipelineOptions of `beam_args`; InputError for an unknown one,
  or a value left as a separate argument (`--project p`: absl misreads it)."""
  try:
    from apache_beam.options import pipeline_options  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise InputError("--runner: Beam pipelines need apache-beam: pip install "
                     "-e \".[beam]\" (bert-tf2[beam])")
  for arg in beam_args:
    if "=" not in arg:
      raise InputError("%s: write Beam pipeline options as --name=value "
                       "(%s is not a flag of %s)" % (arg, arg, script))
  options = pipeline_options.PipelineOptions(beam_args)
  known = options.get_all_options()
  every = options.get_all_options(retain_unknown_options=True)
  unknown = sorted(set(every) - set(known))
  if unknown:
    raise InputError("--%s: neither a flag of %s nor a Beam pipeline option"
                     % (unknown[0], script))
  return options


def find_input_error(exc):
  """The InputError inside a failed pipeline's exception (in its cause
  chain, or as text from a worker process), or None."""
  import re  # pylint: disable=g-import-not-at-top
  seen = exc
  while seen is not None and not isinstance(seen, InputError):
    seen = seen.__cause__ or seen.__context__
  if seen is not None:
    text = str(seen)
  else:
    match = re.search(r"InputError: ([^\n]*)", str(exc))
    if not match:
      return None
    text = match.group(1)
  # Beam appends the step to the message: " [while running 'Read']".
  return InputError(re.sub(r"\s*\[while running [^\]]*\]\s*$", "", text))
