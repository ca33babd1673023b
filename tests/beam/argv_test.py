"""A command line with --runner splits into the script's absl flags and
Beam's pipeline options; unknown options and a pipeline's InputError come
back as one line."""

from absl import flags
import pytest

from bert_tf2.beam import argv
from bert_tf2.common import InputError
from bert_tf2.pretraining_data import flags as data_flags


@pytest.fixture
def flag_values():
  fv = flags.FlagValues()
  data_flags.define_flags(fv)
  return fv


def test_without_runner_everything_goes_to_absl(flag_values):
  line = ["prog", "--input_file=a", "--direct_num_workers=2"]
  assert argv.split(line, flag_values) == (line, None)


def test_with_runner_unknown_flags_go_to_beam(flag_values):
  absl_argv, beam_args = argv.split(
      ["prog", "--input_file=a", "--num_workers", "1", "--runner=DirectRunner",
       "--direct_num_workers=2", "--nodo_lower_case",
       "--direct_running_mode=multi_processing"], flag_values)
  assert absl_argv == ["prog", "--input_file=a", "--num_workers", "1",
                       "--nodo_lower_case"]
  assert beam_args == ["--runner=DirectRunner", "--direct_num_workers=2",
                       "--direct_running_mode=multi_processing"]
  options = argv.check_pipeline_args(beam_args, "x.py")
  assert options.get_all_options()["direct_num_workers"] == 2


def test_unknown_or_detached_beam_options_are_refused():
  with pytest.raises(InputError, match=r"^--bogus_option: neither a flag of "
                     r"x.py nor a Beam pipeline option$"):
    argv.check_pipeline_args(["--runner=DirectRunner", "--bogus_option=1"],
                             "x.py")
  with pytest.raises(InputError, match="write Beam pipeline options as "
                     "--name=value"):
    argv.check_pipeline_args(["--runner=DirectRunner", "--project"], "x.py")


def test_an_input_error_is_found_in_a_wrapped_failure():
  inner = InputError("--input_file: cannot read /x: gone")
  try:
    try:
      raise inner
    except InputError as e:
      raise RuntimeError("pipeline failed") from e
  except RuntimeError as wrapped:
    assert str(argv.find_input_error(wrapped)) == str(inner)
  inner.args = (inner.args[0] + " [while running 'Read']",)  # As Beam does.
  assert str(argv.find_input_error(inner)) == str(InputError(
      "--input_file: cannot read /x: gone"))
  # A worker process's failure arrives as text.
  text = RuntimeError("Traceback ...\nInputError: --input_file: cannot read "
                      "/x: gone [while running 'Read']\n")
  assert str(argv.find_input_error(text)) == "--input_file: cannot read /x: gone"
  assert argv.find_input_error(RuntimeError("other")) is None


def test_without_beam_installed_runner_is_one_line(monkeypatch):
  import sys  # pylint: disable=g-import-not-at-top
  monkeypatch.setitem(sys.modules, "apache_beam.options", None)
  with pytest.raises(InputError, match=r'^--runner: Beam pipelines need '
                     r'apache-beam: pip install -e "\.\[beam\]"'):
    argv.check_pipeline_args(["--runner=DirectRunner"], "x.py")
